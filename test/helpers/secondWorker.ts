import type { Harness } from './harness';
import { createWorker } from '../../worker/worker';

/** Another real worker on the harness's task queue (two workers racing for the same tasks); resolves to its stop. */
export async function startSecondWorker(h: Harness): Promise<() => Promise<void>> {
  const { worker, close } = await createWorker({
    config: h.config,
    knex: h.deps.knex,
    log: h.deps.log,
    address: process.env.TEST_TEMPORAL_ADDRESS!,
    taskQueue: h.taskQueue,
    workflowBundlePath: process.env.TEST_WORKFLOW_BUNDLE,
  });
  const running = worker.run();
  return async () => {
    worker.shutdown();
    await running;
    await close();
  };
}
