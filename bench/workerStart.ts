/**
 * `npm run bench -- workerStart [rounds]`: what a worker process costs to start and to hold, with the
 * workflow bundle built at its start (webpack in the worker's own process) beside the prebuilt
 * bundle `npm run build:workflows` writes (worker/workflowBundle.ts). Each round starts `npm run
 * worker`'s entry (one node process, TypeScript through tsx) against a dev server and a fresh
 * database, waits for "worker running", lets it idle, and reads its time to ready, CPU seconds, RSS
 * and peak RSS from /proc. Rounds alternate the two modes, so a busy machine weighs on both alike.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { startDevServer } from '../worker/devServer';
import { dropDatabase, ensureDatabase, createKnex, migrateLatest } from '../db/knex';
import { buildWorkflowBundle } from '../worker/workflowBundle';

const ROOT = path.resolve(__dirname, '..');
const rounds = Number(process.argv[2] ?? 3);
const IDLE_MS = 3000;

interface Sample {
  readyMs: number;
  cpuSeconds: number;
  rssMb: number;
  peakMb: number;
}

const ticks = 100; // USER_HZ on Linux
function procStats(pid: number): { cpuSeconds: number; rssMb: number; peakMb: number } {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / ticks;
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { cpuSeconds, rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

async function startOnce(env: NodeJS.ProcessEnv): Promise<Sample> {
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'worker', 'worker.ts')], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stderr.on('data', (d) => (out += d));
  try {
    const readyMs = await new Promise<number>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d;
        if (out.includes('worker running')) resolve(Date.now() - started);
      });
      child.once('exit', (code) => reject(new Error(`worker exited with ${code}: ${out.slice(-2000)}`)));
    });
    await new Promise((r) => setTimeout(r, IDLE_MS));
    return { readyMs, ...procStats(child.pid!) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const server = await startDevServer({ headless: true });
  const url = new URL('postgres://postgres@127.0.0.1:5432/postgres');
  url.pathname = `/svc_bench_${Date.now()}_${crypto.randomBytes(3).toString('hex')}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-bundle-'));
  try {
    await ensureDatabase(url.toString());
    const knex = createKnex(url.toString());
    await migrateLatest(knex);
    await knex.destroy();
    const bundle = path.join(dir, 'workflow-bundle.js');
    const built = Date.now();
    const { bytes } = await buildWorkflowBundle(bundle);
    console.log(`bundle: ${(bytes / 1024).toFixed(0)} KB, built once in ${((Date.now() - built) / 1000).toFixed(1)} s (npm run build:workflows)`);
    const base = {
      ...process.env,
      DATABASE_URL: url.toString(),
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_TASK_QUEUE: `bench-${Date.now()}`,
      LOG_LEVEL: 'info',
      WORKER_METRICS_ADDRESS: '',
      WORKER_APP_METRICS_ADDRESS: '',
    };
    const modes = { 'bundled at start': { ...base, WORKFLOW_BUNDLE: 'off' }, prebuilt: { ...base, WORKFLOW_BUNDLE: bundle } } as const;
    const samples: Record<string, Sample[]> = { 'bundled at start': [], prebuilt: [] };
    for (let i = 0; i < rounds; i++) for (const [mode, env] of Object.entries(modes)) samples[mode].push(await startOnce(env));
    console.log(`\nworker start, median of ${rounds} rounds each (idle ${IDLE_MS / 1000} s after ready)`);
    console.log('mode               ready (s)   CPU (s)   RSS (MB)   peak RSS (MB)');
    for (const [mode, s] of Object.entries(samples)) {
      const m = (f: (x: Sample) => number) => median(s.map(f));
      console.log(
        `${mode.padEnd(18)} ${(m((x) => x.readyMs) / 1000).toFixed(1).padStart(9)} ${m((x) => x.cpuSeconds)
          .toFixed(1)
          .padStart(9)} ${m((x) => x.rssMb)
          .toFixed(0)
          .padStart(10)} ${m((x) => x.peakMb)
          .toFixed(0)
          .padStart(15)}`,
      );
    }
  } finally {
    await server.stop();
    await dropDatabase(url.toString()).catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
