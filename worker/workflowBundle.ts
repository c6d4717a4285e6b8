/**
 * The workflow bundle built ahead of time (docs/benchmarks.md, "Worker memory"): `npm run
 * build:workflows` runs webpack once and writes dist/workflow-bundle.js with the hash of what it
 * bundled; a worker that finds a bundle whose hash matches today's sources loads it instead of running
 * webpack in its own process at every start (seconds of CPU and a webpack heap the worker keeps).
 * A missing or stale bundle is not an error: the worker bundles from source as before.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
export const WORKFLOWS_PATH = path.join(ROOT, 'temporal', 'workflows', 'index.ts');
export const DEFAULT_BUNDLE_PATH = path.join(ROOT, 'dist', 'workflow-bundle.js');
/**
 * Evaluated once per worker thread's V8 context instead of once per workflow run or replay
 * (bundlerOptions.preloadModules): the workflows and step modules keep no per-run state at module
 * scope (docs/step-types.md says a step file must not), so sharing them is safe.
 */
export const PRELOADED = [WORKFLOWS_PATH];
const stampOf = (bundlePath: string) => `${bundlePath}.source-hash`;

/** What the sandbox bundle is built from: temporal/ (the only values it imports), lib/triggerStep, lib/reservedEvents (lint/sandboxImports.grit), the lockfile. */
export function workflowSourceHash(): string {
  const hash = crypto.createHash('sha256');
  const add = (file: string) => {
    hash.update(path.relative(ROOT, file));
    hash.update(fs.readFileSync(file));
  };
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else add(full);
    }
  };
  walk(path.join(ROOT, 'temporal'));
  add(path.join(ROOT, 'lib', 'triggerStep.ts'));
  add(path.join(ROOT, 'lib', 'reservedEvents.ts'));
  add(path.join(ROOT, 'package-lock.json'));
  // How it is bundled is part of what it is: a bundle without today's preload list is stale too.
  hash.update(`preload:${PRELOADED.map((m) => path.relative(ROOT, m)).join(',')}`);
  return hash.digest('hex');
}

/** The prebuilt bundle's path when it exists and was built from today's sources; null otherwise. */
export function prebuiltWorkflowBundle(bundlePath = DEFAULT_BUNDLE_PATH): string | null {
  try {
    return fs.readFileSync(stampOf(bundlePath), 'utf8').trim() === workflowSourceHash() && fs.existsSync(bundlePath) ? bundlePath : null;
  } catch {
    return null;
  }
}

/** Bundles the workflows (webpack, through the SDK) into `bundlePath` and records the sources' hash beside it. */
export async function buildWorkflowBundle(bundlePath = DEFAULT_BUNDLE_PATH): Promise<{ bytes: number }> {
  const { bundleWorkflowCode } = await import('@temporalio/worker');
  const hash = workflowSourceHash();
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, preloadModules: PRELOADED, logger: quietLogger });
  fs.mkdirSync(path.dirname(bundlePath), { recursive: true });
  fs.writeFileSync(`${bundlePath}.tmp`, code);
  fs.renameSync(`${bundlePath}.tmp`, bundlePath);
  fs.writeFileSync(stampOf(bundlePath), hash);
  return { bytes: Buffer.byteLength(code) };
}

const quiet = () => undefined;
const quietLogger = { log: quiet, trace: quiet, debug: quiet, info: quiet, warn: quiet, error: (msg: string, meta?: unknown) => console.error(msg, meta) };
