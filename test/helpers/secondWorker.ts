import type { Harness } from './harness';
import { createWorker } from '../../worker/worker';

/** A real worker (not yet running) on the harness's task queues, on the run's dev server and shared bundle. */
export function createHarnessWorker(h: Harness) {
  return createWorker({
    config: h.config,
    knex: h.deps.knex,
    log: h.deps.log,
    address: process.env.TEST_TEMPORAL_ADDRESS!,
    taskQueue: h.taskQueue,
    workflowBundlePath: process.env.TEST_WORKFLOW_BUNDLE,
  });
}

/** Another real worker on the harness's task queue (two workers racing for the same tasks); resolves to its stop. */
export async function startSecondWorker(h: Harness): Promise<() => Promise<void>> {
  const { worker, close } = await createHarnessWorker(h);
  const running = worker.run();
  return async () => {
    worker.shutdown();
    await running;
    await close();
  };
}
