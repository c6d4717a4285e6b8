import path from 'node:path';
import { NativeConnection, Worker, Runtime, DefaultLogger, WorkerOptions, bundleWorkflowCode } from '@temporalio/worker';
import { Client, Connection } from '@temporalio/client';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import type { Knex } from 'knex';
import type { StepRegistry } from '../temporal/steps';
import { createActivities } from '../activities';
import { ensureSchedules } from './schedules';
import { createTemporalGateway, temporalAddress, TemporalGateway } from '../services/temporal';
import { sdkTelemetryOptions, serveWorkerMetrics } from './workerMetrics';
import { deliveriesTaskQueue } from '../temporal/workflowIds';

let runtimeInstalled = false;
function installRuntime(config: Config) {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const level = config.logLevel;
  const sdkLevel = level === 'debug' || level === 'trace' ? 'DEBUG' : level === 'silent' ? 'ERROR' : 'WARN';
  Runtime.install({ logger: new DefaultLogger(sdkLevel as any), ...sdkTelemetryOptions(config) });
}

export interface StartWorkerOptions {
  config: Config;
  knex: Knex;
  log: Logger;
  address?: string;
  taskQueue?: string;
  /** A prebuilt workflow bundle (tests build it once per run); otherwise bundled from source. */
  workflowBundlePath?: string;
  /** Create the Temporal Schedules this worker's task queue serves (idempotent). */
  schedules?: boolean;
  /** Step types beyond temporal/steps (tests, forks): see `StepPlugins`. */
  steps?: StepPlugins;
}

/**
 * An injected step registry for the worker: the registry activities parse graph snapshots with, a
 * workflows file whose `workflowExecution` is `executionWorkflow(registry)` (the sandbox cannot be
 * handed values, only a file to bundle), and the activities of the extra step types.
 */
export interface StepPlugins {
  registry: StepRegistry;
  workflowsPath: string;
  activities?: Record<string, (...args: any[]) => Promise<unknown>>;
}

export const WORKFLOWS_PATH = path.join(__dirname, '..', 'temporal', 'workflows', 'index.ts');

/** Both workers as one: run() resolves once both have stopped; shutdown() stops both. */
export interface WorkerPair {
  run(): Promise<void>;
  shutdown(): void;
}

export interface CreatedWorker {
  worker: WorkerPair;
  /** The two workers: the main task queue, and `deliverEmail` on its own (temporal/workflowIds.ts `deliveriesTaskQueue`). */
  workers: { main: Worker; deliveries: Worker };
  /** Closes what the worker opened (its native connection and its client for activities). */
  close(): Promise<void>;
}

/** Runs both; when one stops (or fails), the other is shut down too, and a failure is rethrown. */
function pair(workers: Worker[]): WorkerPair {
  const shutdown = () => {
    for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
  };
  return {
    async run() {
      const results = await Promise.allSettled(workers.map((w) => w.run().finally(shutdown)));
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    },
    shutdown,
  };
}

export async function createWorker(opts: StartWorkerOptions): Promise<CreatedWorker> {
  installRuntime(opts.config);
  const address = opts.address ?? temporalAddress(opts.config);
  const taskQueue = opts.taskQueue ?? opts.config.temporal.taskQueue;
  const connection = await NativeConnection.connect({ address });
  const gateway: TemporalGateway = createTemporalGateway({ ...opts.config, temporal: { ...opts.config.temporal, taskQueue } }, address);
  // Bundled once for both workers (bundling takes seconds and memory).
  const workflowSource: Pick<WorkerOptions, 'workflowBundle'> = opts.workflowBundlePath && !opts.steps
    ? { workflowBundle: { codePath: opts.workflowBundlePath } }
    : { workflowBundle: await bundleWorkflowCode({ workflowsPath: opts.steps?.workflowsPath ?? WORKFLOWS_PATH, logger: Runtime.instance().logger }) };
  // One set of activities for both workers: they share the send rate limiter and transport pools.
  const activities = {
    ...createActivities({ config: opts.config, knex: opts.knex, log: opts.log, temporal: gateway, steps: opts.steps?.registry }),
    ...opts.steps?.activities,
  };
  const create = (queue: string) =>
    Worker.create({
      connection,
      namespace: opts.config.temporal.namespace,
      taskQueue: queue,
      ...workflowSource,
      activities,
      // Bounded workflow cache keeps RSS flat when many executions wait for days.
      maxCachedWorkflows: opts.config.temporal.maxCachedWorkflows,
    });
  // The main queue's worker still registers deliverEmail: emails started there by an older
  // deployment (or by a SEND_EMAIL step from before the patch) are still delivered.
  const main = await create(taskQueue);
  // Its own pollers and slots, so a send never waits behind event routing on the main queue.
  const deliveries = await create(deliveriesTaskQueue(taskQueue));
  if (opts.schedules) {
    const conn = await Connection.connect({ address });
    try {
      await ensureSchedules(new Client({ connection: conn, namespace: opts.config.temporal.namespace }), taskQueue);
    } finally {
      await conn.close();
    }
  }
  return {
    worker: pair([main, deliveries]),
    workers: { main, deliveries },
    async close() {
      await gateway.close();
      await connection.close();
    },
  };
}

if (require.main === module) {
  (async () => {
    const { loadConfigOrExit } = await import('../lib/config');
    const { createLogger } = await import('../lib/logger');
    const { createKnex } = await import('../db/knex');
    const { ensureSearchAttributes } = await import('./searchAttributes');
    const config = loadConfigOrExit();
    const log = createLogger(config.logLevel, 'worker');
    const knex = createKnex(config.databaseUrl, { max: 20 });
    const conn = await Connection.connect({ address: temporalAddress(config) });
    await ensureSearchAttributes(conn, config.temporal.namespace);
    await conn.close();
    const { worker, close } = await createWorker({ config, knex, log, schedules: true });
    const metrics = await serveWorkerMetrics(config, knex, log);
    log.info({ taskQueue: config.temporal.taskQueue, deliveriesTaskQueue: deliveriesTaskQueue(config.temporal.taskQueue), address: temporalAddress(config) }, 'worker running');
    await worker.run();
    await metrics.close();
    await close();
    await knex.destroy();
  })().catch((err) => {
    process.stderr.write(`worker failed: ${err?.stack ?? err}\n`);
    process.exit(1);
  });
}
