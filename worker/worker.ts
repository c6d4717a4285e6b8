import { NativeConnection, Worker, Runtime, DefaultLogger, WorkerOptions } from '@temporalio/worker';
import { Client, Connection } from '@temporalio/client';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import type { Knex } from 'knex';
import type { StepRegistry } from '../temporal/steps';
import { createActivities } from '../activities';
import { ensureSchedules } from './schedules';
import { createTemporalGateway, temporalAddress, TemporalGateway } from '../services/temporal';
import { createRuntime } from '../services/runtime';
import { sdkTelemetryOptions, serveWorkerMetrics } from './workerMetrics';
import { PRELOADED, prebuiltWorkflowBundle, WORKFLOWS_PATH } from './workflowBundle';

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

export { WORKFLOWS_PATH };

export interface CreatedWorker {
  worker: Worker;
  /** Closes what the worker opened (its native connection and its client for activities). */
  close(): Promise<void>;
}

export async function createWorker(opts: StartWorkerOptions): Promise<CreatedWorker> {
  installRuntime(opts.config);
  const address = opts.address ?? temporalAddress(opts.config);
  const taskQueue = opts.taskQueue ?? opts.config.temporal.taskQueue;
  const connection = await NativeConnection.connect({ address });
  // Its client shares the worker's connection: the executions routing starts begin here eagerly.
  const gateway: TemporalGateway = createTemporalGateway({ ...opts.config, temporal: { ...opts.config.temporal, taskQueue } }, address, { connection });
  const workflowSource: Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath' | 'bundlerOptions'> = opts.steps
    ? { workflowsPath: opts.steps.workflowsPath }
    : opts.workflowBundlePath
      ? { workflowBundle: { codePath: opts.workflowBundlePath } }
      : { workflowsPath: WORKFLOWS_PATH, bundlerOptions: { preloadModules: PRELOADED } };
  // The worker's collaborators, built once: its transport (one SMTP pool), event hand-off and verifier.
  const runtime = createRuntime({ config: opts.config, knex: opts.knex, temporal: gateway, log: opts.log });
  const worker = await Worker.create({
    connection,
    namespace: opts.config.temporal.namespace,
    taskQueue,
    ...workflowSource,
    activities: {
      ...createActivities({ config: opts.config, knex: opts.knex, log: opts.log, temporal: gateway, steps: opts.steps?.registry, runtime }),
      ...opts.steps?.activities,
    },
    // Bounded workflow cache keeps RSS flat when many executions wait for days.
    maxCachedWorkflows: opts.config.temporal.maxCachedWorkflows,
  });
  if (opts.schedules) {
    const conn = await Connection.connect({ address });
    try {
      await ensureSchedules(new Client({ connection: conn, namespace: opts.config.temporal.namespace }), taskQueue);
    } finally {
      await conn.close();
    }
  }
  return {
    worker,
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
    // A bundle `npm run build:workflows` made from today's sources spares this process webpack (worker/workflowBundle.ts).
    const wanted = config.temporal.workflowBundle;
    const workflowBundlePath = wanted === 'off' ? undefined : (prebuiltWorkflowBundle(wanted) ?? undefined);
    const { worker, close } = await createWorker({ config, knex, log, schedules: true, workflowBundlePath });
    const metrics = await serveWorkerMetrics(config, knex, log);
    log.info(
      { taskQueue: config.temporal.taskQueue, address: temporalAddress(config), workflowBundle: workflowBundlePath ?? 'bundled at start' },
      'worker running',
    );
    await worker.run();
    await metrics.close();
    await close();
    await knex.destroy();
  })().catch((err) => {
    process.stderr.write(`worker failed: ${err?.stack ?? err}\n`);
    process.exit(1);
  });
}
