/**
 * The dashboard's build (docs/dashboard.md): `vite build` of web/ into web/dist, then the gzipped
 * JavaScript the first screen loads, checked against its budget.
 *
 * - `npm ci` runs it through the root `prepare` script (`tsx scripts/buildWeb.ts --if-needed`);
 * - `npm start` calls ensureDashboardBuilt(): it rebuilds when web/dist is missing or stale — when the
 *   hash of web/'s sources and package-lock.json differs from the one the last build recorded;
 * - `npm run build:web` always builds.
 * Where vite is not installed (an image built with `npm ci --omit=dev`) it says so and builds nothing.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const ROOT = path.resolve(__dirname, '..');
export const WEB_DIR = path.join(ROOT, 'web');
export const DIST_DIR = path.join(WEB_DIR, 'dist');
const STAMP = path.join(DIST_DIR, '.source-hash');
/** The first screen's JavaScript budget (gzipped). */
export const INITIAL_JS_BUDGET_BYTES = 250 * 1024;

/** web/'s sources (not dist, not node_modules) and the lockfile: what a build depends on. */
export function sourceHash(): string {
  const hash = crypto.createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name === 'dist' || entry.name === 'node_modules') continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else {
        hash.update(path.relative(WEB_DIR, full));
        hash.update(fs.readFileSync(full));
      }
    }
  };
  walk(WEB_DIR);
  hash.update(fs.readFileSync(path.join(ROOT, 'package-lock.json')));
  return hash.digest('hex');
}

export function isDashboardStale(): boolean {
  if (!fs.existsSync(path.join(DIST_DIR, 'index.html')) || !fs.existsSync(STAMP)) return true;
  return fs.readFileSync(STAMP, 'utf8').trim() !== sourceHash();
}

const viteBin = () => path.join(ROOT, 'node_modules', '.bin', 'vite');

interface ManifestChunk {
  file: string;
  imports?: string[];
  dynamicImports?: string[];
  isEntry?: boolean;
  src?: string;
}

/** Gzipped size of the JavaScript the first screen (/app/ → the login form) needs before it renders. */
export function initialJsSize(): { bytes: number; files: string[] } {
  const manifest = JSON.parse(fs.readFileSync(path.join(DIST_DIR, '.vite', 'manifest.json'), 'utf8')) as Record<string, ManifestChunk>;
  const files = new Set<string>();
  const add = (key: string) => {
    const chunk = manifest[key];
    if (!chunk || files.has(chunk.file)) return;
    files.add(chunk.file);
    for (const dep of chunk.imports ?? []) add(dep);
  };
  const entry = Object.keys(manifest).find((k) => manifest[k].isEntry)!;
  add(entry);
  // The routes a signed-out visitor passes through: Home decides, then the login form.
  for (const k of Object.keys(manifest)) if (/pages\/(Home|Login)\.tsx$/.test(k)) add(k);
  const bytes = [...files].reduce((n, f) => n + zlib.gzipSync(fs.readFileSync(path.join(DIST_DIR, f)), { level: 9 }).length, 0);
  return { bytes, files: [...files] };
}

export async function buildDashboard(log: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Promise<void> {
  const hash = sourceHash();
  await new Promise<void>((resolve, reject) => {
    // Always React's production build: a caller's NODE_ENV (jest sets `test`) would otherwise select the development one.
    const env = { ...process.env, NODE_ENV: 'production' };
    const child = spawn(viteBin(), ['build', '--config', path.join(WEB_DIR, 'vite.config.ts'), '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit', env });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`vite build exited with code ${code}`))));
  });
  const { bytes, files } = initialJsSize();
  const kb = (bytes / 1024).toFixed(1);
  log(
    `dashboard built into web/dist: the first screen loads ${kb} KB of gzipped JavaScript (${files.length} files; budget ${INITIAL_JS_BUDGET_BYTES / 1024} KB)`,
  );
  if (bytes > INITIAL_JS_BUDGET_BYTES)
    throw new Error(`the first screen's JavaScript is ${kb} KB gzipped, over the ${INITIAL_JS_BUDGET_BYTES / 1024} KB budget`);
  fs.writeFileSync(STAMP, `${hash}\n`);
}

/** `npm start`: builds when missing or stale; false (and a reason) when it cannot build here. */
export async function ensureDashboardBuilt(log: (line: string) => void): Promise<{ built: boolean; reason?: string }> {
  if (!fs.existsSync(WEB_DIR)) return { built: false, reason: 'web/ is not here' };
  if (!isDashboardStale()) return { built: false };
  if (!fs.existsSync(viteBin())) return { built: false, reason: 'vite is not installed (npm ci without --omit=dev installs it)' };
  log('building the dashboard (web/ changed since the last build, or was never built)');
  await buildDashboard(log);
  return { built: true };
}

if (require.main === module) {
  const ifNeeded = process.argv.includes('--if-needed');
  (ifNeeded ? ensureDashboardBuilt((l) => process.stdout.write(`${l}\n`)) : buildDashboard().then(() => ({ built: true, reason: undefined })))
    .then((r) => {
      if (ifNeeded && !r.built) process.stdout.write(r.reason ? `dashboard not built: ${r.reason}\n` : 'dashboard is up to date\n');
    })
    .catch((err) => {
      process.stderr.write(`dashboard build failed: ${err?.message ?? err}\n`);
      process.exit(1);
    });
}
