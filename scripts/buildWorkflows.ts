/**
 * `npm run build:workflows`: bundles the workflows once into dist/workflow-bundle.js, so workers load
 * it instead of running webpack at their start (worker/workflowBundle.ts). `--if-needed` skips a
 * bundle that is already fresh. The Docker image and `npm start` build it; a worker without one
 * bundles from source as before.
 */
import { buildWorkflowBundle, DEFAULT_BUNDLE_PATH, prebuiltWorkflowBundle } from '../worker/workflowBundle';

/** Builds the bundle unless a fresh one exists; returns its path. */
export async function ensureWorkflowBundle(say: (line: string) => void = () => undefined): Promise<string> {
  const fresh = prebuiltWorkflowBundle();
  if (fresh) return fresh;
  const started = Date.now();
  const { bytes } = await buildWorkflowBundle();
  say(`workflow bundle built into ${DEFAULT_BUNDLE_PATH} (${(bytes / 1024).toFixed(0)} KB, ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  return DEFAULT_BUNDLE_PATH;
}

if (require.main === module) {
  const ifNeeded = process.argv.includes('--if-needed');
  (ifNeeded
    ? ensureWorkflowBundle((l) => console.log(l))
    : buildWorkflowBundle().then(({ bytes }) => console.log(`workflow bundle built into ${DEFAULT_BUNDLE_PATH} (${(bytes / 1024).toFixed(0)} KB)`))
  ).catch((err) => {
    console.error(`workflow bundle failed: ${err?.stack ?? err}`);
    process.exit(1);
  });
}
