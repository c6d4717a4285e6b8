import { Client, Connection, WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/client';
import type { Config } from '../lib/config';

/** The API's handle on Temporal: one lazily opened connection per process. */
export interface TemporalGateway {
  client(): Promise<Client>;
  connection(): Promise<Connection>;
  taskQueue: string;
  namespace: string;
  health(timeoutMs?: number): Promise<boolean>;
  /** Runs before the connection closes (e.g. handing over batched work). */
  beforeClose(fn: () => Promise<void>): void;
  close(): Promise<void>;
}

export function temporalAddress(config: Config): string {
  return config.temporal.address ?? '127.0.0.1:7233';
}

export function createTemporalGateway(config: Config, address = temporalAddress(config)): TemporalGateway {
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
    async client() {
      if (!client) client = new Client({ connection: await connection(), namespace: config.temporal.namespace });
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
      else if (connecting) void connecting.then((c) => c.close(), () => undefined);
      connected = null;
      connecting = null;
      client = null;
    },
  };
}

export interface StartOnce {
  workflowType: string;
  workflowId: string;
  args: unknown[];
  /** Keyword search attributes for the Web UI (ProjectId, ContactId, WorkflowDefinitionId). */
  searchAttributes?: Record<string, string | undefined>;
  memo?: Record<string, unknown>;
  startDelay?: string;
}

/**
 * Starts a workflow under a deterministic id. A second start of the same id (a retried API call,
 * a re-run reaper) is a no-op, so callers may start freely.
 */
export async function startWorkflowOnce(gateway: TemporalGateway, s: StartOnce): Promise<{ started: boolean }> {
  const client = await gateway.client();
  const searchAttributes: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(s.searchAttributes ?? {})) if (v) searchAttributes[k] = [v];
  try {
    await client.workflow.start(s.workflowType, {
      taskQueue: gateway.taskQueue,
      workflowId: s.workflowId,
      args: s.args,
      searchAttributes,
      memo: s.memo,
      // One execution per id, ever; only a failed run may be started again (by a sweep).
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
      ...(s.startDelay ? { startDelay: s.startDelay as any } : {}),
    });
    return { started: true };
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return { started: false };
    throw err;
  }
}
