import {
  Client,
  Connection,
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
  WorkflowStartOptions,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import type { SignalDefinition, UpdateDefinition } from '@temporalio/common';
import type { NativeConnection } from '@temporalio/worker';
import type { Config } from '../lib/config';
import { workflowStarts } from '../lib/metrics';
import { searchAttributeLists, type StartOnce, type StartSpec } from '../temporal/startSpec';

/** The API's handle on Temporal: one lazily opened connection per process. */
export interface TemporalGateway {
  client(): Promise<Client>;
  connection(): Promise<Connection>;
  taskQueue: string;
  namespace: string;
  /**
   * Starts ask the server to hand the new run's first workflow task straight back (eager start):
   * only a worker's own gateway, whose client shares the worker's NativeConnection and task queue.
   */
  eagerStart: boolean;
  health(timeoutMs?: number): Promise<boolean>;
  /** Runs before the connection closes (e.g. handing over batched work). */
  beforeClose(fn: () => Promise<void>): void;
  close(): Promise<void>;
}

export function temporalAddress(config: Config): string {
  return config.temporal.address ?? '127.0.0.1:7233';
}

/**
 * `worker`: the worker's NativeConnection. The client then runs over it, so a run this process
 * starts on its own task queue can begin on this worker without a trip through matching (eager
 * workflow start; the server falls back to the queue when the worker has no free slot).
 */
export function createTemporalGateway(config: Config, address = temporalAddress(config), worker?: { connection: NativeConnection }): TemporalGateway {
  let connecting: Promise<Connection> | null = null;
  let client: Client | null = null;
  let connected: Connection | null = null;
  const closing: Array<() => Promise<void>> = [];
  const connection = () => {
    if (!connecting) {
      connecting = Connection.connect({ address }).then(
        (c) => (connected = c),
        (err) => {
          // A failed connect is retried by the next caller instead of being cached forever.
          connecting = null;
          throw err;
        },
      );
    }
    return connecting;
  };
  return {
    taskQueue: config.temporal.taskQueue,
    namespace: config.temporal.namespace,
    connection,
    eagerStart: !!worker,
    async client() {
      if (!client) client = new Client({ connection: worker?.connection ?? (await connection()), namespace: config.temporal.namespace });
      return client;
    },
    async health(timeoutMs = 2000) {
      // A health probe must answer fast even when Temporal is unreachable.
      const probe = (async () => {
        const conn = await connection();
        await conn.workflowService.getSystemInfo({});
        return true;
      })().catch(() => false);
      const timeout = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref());
      return Promise.race([probe, timeout]);
    },
    beforeClose(fn) {
      closing.push(fn);
    },
    async close() {
      for (const fn of closing.splice(0)) await fn().catch(() => undefined);
      if (connected) await connected.close();
      // Do not wait out a connect that may still be timing out; close it whenever it lands.
      else if (connecting)
        void connecting.then(
          (c) => c.close(),
          () => undefined,
        );
      connected = null;
      connecting = null;
      client = null;
    },
  };
}

export type { SearchAttributeName, StartOnce, StartSpec } from '../temporal/startSpec';
export { searchAttributeLists } from '../temporal/startSpec';

/**
 * Starts a workflow, given by its type, under a deterministic id. A second start of the same id
 * (a retried API call, a re-run reaper) is a no-op, so callers may start freely.
 */
export async function startWorkflowOnce(gateway: TemporalGateway, workflowType: string, s: StartOnce<unknown[]>): Promise<{ started: boolean }> {
  const client = await gateway.client();
  try {
    // The kit's args were checked against the workflow (temporal/workflows/startKits.ts); started by type name, the SDK types them loosely.
    const options: WorkflowStartOptions = {
      taskQueue: gateway.taskQueue,
      workflowId: s.workflowId,
      args: s.args,
      searchAttributes: searchAttributeLists(s),
      memo: s.memo,
      staticSummary: s.summary,
      staticDetails: s.details,
      // One execution per id, ever; only a failed run may be started again (by a sweep).
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
      ...(s.priorityKey ? { priority: { priorityKey: s.priorityKey } } : {}),
      ...(gateway.eagerStart ? { requestEagerStart: true } : {}),
    };
    const handle = await client.workflow.start(workflowType, options);
    workflowStarts.inc({ eager: String(handle.eagerlyStarted) });
    return { started: true };
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return { started: false };
    throw err;
  }
}

/** Signals one workflow; false when it has ended (or never started), which callers take as "not waiting". */
export async function signalWorkflow<Args extends unknown[]>(
  gateway: TemporalGateway,
  workflowId: string,
  signal: SignalDefinition<Args>,
  ...args: Args
): Promise<boolean> {
  try {
    await (await gateway.client()).workflow.getHandle(workflowId).signal(signal, ...args);
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/** Requests cancellation of one workflow; one that already ended (or never started) is fine. */
export async function cancelWorkflow(gateway: TemporalGateway, workflowId: string, runId?: string): Promise<boolean> {
  try {
    await (await gateway.client()).workflow.getHandle(workflowId, runId).cancel();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/**
 * Ends one workflow at once, without running its cancellation path; one that already ended (or
 * never started) is fine. A terminated run may be started again under the same id.
 */
export async function terminateWorkflow(gateway: TemporalGateway, workflowId: string, reason: string): Promise<boolean> {
  try {
    await (await gateway.client()).workflow.getHandle(workflowId).terminate(reason);
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/**
 * Sends an Update and waits for its handler's answer. `refused` carries the reason when the
 * workflow's validator (or handler) said no, or when the workflow has ended or never started.
 */
export async function updateWorkflow<Ret>(
  gateway: TemporalGateway,
  workflowId: string,
  update: UpdateDefinition<Ret, []>,
): Promise<{ result: Ret } | { refused: string }> {
  try {
    return { result: await (await gateway.client()).workflow.getHandle(workflowId).executeUpdate(update) };
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) return { refused: (err.cause as Error | undefined)?.message ?? err.message };
    if (err instanceof WorkflowNotFoundError) return { refused: 'its workflow has ended' };
    throw err;
  }
}

/** Starts the workflow a start spec describes (its id, args, UI text, priority) for `input`; a repeat is a no-op. */
export function start<I>(gateway: TemporalGateway, spec: StartSpec<string, unknown[], I>, input: I): Promise<{ started: boolean }> {
  return startWorkflowOnce(gateway, spec.workflowType, spec.build(input));
}
