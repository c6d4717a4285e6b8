import { createRuntime } from '../services/runtime';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import http from 'node:http';
import path from 'node:path';
import { spawn, ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { loadConfig, Config } from '../lib/config';
import { createLogger } from '../lib/logger';
import { APP_SERVICES, serviceNodeOptions } from '../scripts/topology';
import { createKnex, ensureDatabase, migrateLatest, dropDatabase } from '../db/knex';
import { startDevServer, DevServer } from '../worker/devServer';
import { createTemporalGateway, TemporalGateway } from '../services/temporal';
import { startApi, closeServer } from '../api/server';
import type { Deps } from '../api/context';
import type { Knex } from 'knex';
import { cpuMeter, CpuReport, formatCpu } from './cpu';
import { ensureWorkflowBundle } from '../scripts/buildWorkflows';

export interface BenchStack {
  url: string;
  deps: Deps;
  config: Config;
  knex: Knex;
  temporal: TemporalGateway;
  server: Pick<DevServer, 'address' | 'process' | 'stop'>;
  stop(): Promise<void>;
}

/**
 * BENCH_TEMPORAL=server runs the bench on the production Temporal server (built from its Go
 * module, persistence and visibility on Postgres; scripts/temporalServer.ts) instead of the CLI's
 * dev server, with throwaway databases of its own; BENCH_TEMPORAL=none starts none.
 */
async function startTemporal(): Promise<BenchStack['server']> {
  // BENCH_TEMPORAL=none: no server at all, for benches that only read (bench/scale.ts's reads and
  // seed never reach Temporal; the gateway connects lazily, so nothing asks for the address).
  if (process.env.BENCH_TEMPORAL === 'none') return { address: '127.0.0.1:1', process: undefined as never, stop: async () => undefined };
  if (process.env.BENCH_TEMPORAL !== 'server') return startDevServer({ headless: true });
  const { startServerProcess, freePortRange } = await import('../scripts/temporalServer');
  const id = `svc_bench_${Date.now()}_${crypto.randomBytes(3).toString('hex')}`;
  const databases = { default: `${id}_temporal`, visibility: `${id}_visibility` };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-temporal-'));
  const base = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const server = await startServerProcess({ databaseUrl: base, dir, port: await freePortRange(), databases });
  return {
    ...server,
    async stop() {
      await server.stop();
      for (const db of Object.values(databases)) await dropDatabase(Object.assign(new URL(base), { pathname: `/${db}` }).toString()).catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The real API on a fresh database and its own Temporal dev server, like the tests but listening on a port.
 * `keepDatabase`: a DATABASE_URL given in `env` is left in place at stop (bench/scale.ts reuses its seeded database).
 */
export async function startStack(env: Record<string, string> = {}, opts: { keepDatabase?: boolean } = {}): Promise<BenchStack> {
  // Worker processes load the prebuilt bundle, as npm start's does: one that bundles at start spends
  // its first seconds in webpack while the bench is already measuring.
  await ensureWorkflowBundle();
  const server = await startTemporal();
  const url = new URL('postgres://postgres@127.0.0.1:5432/postgres');
  url.pathname = `/svc_bench_${Date.now()}_${crypto.randomBytes(3).toString('hex')}`;
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: url.toString(),
    JWT_SECRET: 'bench-secret-bench-secret',
    LOG_LEVEL: 'silent',
    TEMPORAL_TASK_QUEUE: 'bench',
    ...env,
  });
  await ensureDatabase(config.databaseUrl);
  const knex = createKnex(config.databaseUrl, { max: 40 });
  await migrateLatest(knex);
  const temporal = createTemporalGateway(config, server.address);
  const log = createLogger('silent');
  const deps: Deps = { config, knex, temporal, log, runtime: createRuntime({ config, knex, temporal, log }) };
  const api = await startApi(deps, 0);
  const port = (api.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    deps,
    config,
    knex,
    temporal,
    server,
    async stop() {
      await closeServer(api);
      await temporal.close();
      await knex.destroy();
      await server.stop();
      if (!opts.keepDatabase) await dropDatabase(config.databaseUrl).catch(() => undefined);
    },
  };
}

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  /** Every request's latency in ms, sorted (for merging slices). */
  latencies: number[];
  /** CPU seconds of the load generator's own process, when it runs in one (runRemoteLoad). */
  clientCpuSeconds?: number;
  /** Where the machine's CPU went during the load (sideBySide). */
  cpu?: CpuReport;
}

/** The p-th percentile of ascending `sorted`; 0 when empty. */
export const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : 0);

/** One result for several slices of the same load. */
export function mergeLoads(parts: LoadResult[]): LoadResult {
  const latencies = parts.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const total = (f: (r: LoadResult) => number | undefined) => parts.reduce((n, r) => n + (f(r) ?? 0), 0);
  const seconds = total((r) => r.seconds);
  const cpus = parts.flatMap((r) => (r.cpu ? [r.cpu] : []));
  const cpu: CpuReport | undefined = cpus.length
    ? {
        seconds: cpus.reduce((n, c) => n + c.seconds, 0),
        parts: Object.fromEntries(Object.keys(cpus[0].parts).map((k) => [k, cpus.reduce((n, c) => n + c.parts[k], 0)])),
        machine: cpus.reduce((n, c) => n + c.machine * c.seconds, 0) / cpus.reduce((n, c) => n + c.seconds, 0),
      }
    : undefined;
  const client = parts.some((r) => r.clientCpuSeconds !== undefined) ? total((r) => r.clientCpuSeconds) : undefined;
  if (cpu && client !== undefined) cpu.parts['load client'] = client;
  return {
    requests: latencies.length,
    errors: total((r) => r.errors),
    seconds,
    perSecond: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    latencies,
    cpu,
  };
}

/**
 * Runs a floor and a route side by side in ABBA order (floor, route, route, floor), each slice
 * half the time, and merges each side's slices. A server whose state drifts during the run (the
 * Temporal dev server slows as started workflows pile up; tables grow) then weighs on both sides
 * equally instead of on whichever runs second.
 */
export async function sideBySide(
  floor: (seconds: number) => Promise<LoadResult>,
  route: (seconds: number) => Promise<LoadResult>,
  seconds: number,
  /** Processes whose CPU to count besides this one and Postgres (cpuMeter). */
  meter: Record<string, number | undefined> = {},
) {
  const half = seconds / 2;
  const metered = async (load: (seconds: number) => Promise<LoadResult>) => {
    const m = cpuMeter(meter);
    const r = await load(half);
    return { ...r, cpu: m.stop() };
  };
  const f1 = await metered(floor);
  const r1 = await metered(route);
  const r2 = await metered(route);
  const f2 = await metered(floor);
  return { floor: mergeLoads([f1, f2]), route: mergeLoads([r1, r2]) };
}

/** Runs `op` from `concurrency` loops for `seconds`; latencies in milliseconds. */
export async function runLoad(op: (i: number) => Promise<boolean>, concurrency: number, seconds: number): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let n = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        const ok = await op(n++).catch(() => false);
        latencies.push(performance.now() - t0);
        if (!ok) errors++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    seconds: elapsed,
    perSecond: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    latencies,
  };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

/** A JSON POST over a keep-alive socket; resolves true on a 2xx. */
export function postJson(url: string, body: unknown, headers: Record<string, string>): Promise<boolean> {
  return postRaw(url, JSON.stringify(body), headers);
}

/** postJson with the body already serialized. */
export function postRaw(url: string, data: string, headers: Record<string, string>): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), ...headers } },
      (res) => {
        res.resume();
        res.on('end', () => resolve((res.statusCode ?? 500) < 300));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

export const fmt = (r: LoadResult) =>
  `${r.perSecond.toFixed(0).padStart(6)} req/s   p50 ${r.p50.toFixed(1).padStart(6)} ms   p99 ${r.p99.toFixed(1).padStart(6)} ms   (${r.requests} requests, ${r.errors} errors)`;

/** Marks `domain` verified for the project (written directly: no DNS in a bench), so its senders may send. */
export async function benchVerifiedDomain(db: Pick<BenchStack, 'knex'>, projectId: string, domain = 'bench.example'): Promise<void> {
  await db
    .knex('domains')
    .insert({ id: crypto.randomUUID(), project_id: projectId, domain, token: 't', status: 'VERIFIED', records: '[]', verified_at: new Date() });
}

/** The campaign benches' newsletter: about 2 KB of HTML, personalised twice, one (subscription) link; it still fits a SendGrid substitution. */
export const NEWSLETTER = {
  subject: 'News for {{ name ?? "you" }}',
  body: `<html><body><h1>Hello {{ name ?? "friend" }}</h1>${'<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore.</p>'.repeat(16)}<a href="{{ unsubscribeUrl }}">Unsubscribe</a></body></html>`,
};

/** `n` subscribed contacts (user<i>@bench.example, data.name) in one statement: the benches measure sending, not the contacts API. */
export async function seedContacts(db: Pick<BenchStack, 'knex'>, projectId: string, n: number): Promise<void> {
  await db.knex.raw(
    `INSERT INTO contacts (id, project_id, email, subscribed, data)
     SELECT 'cnt_' || substr(md5(? || g::text), 1, 22), ?, 'user' || g || '@bench.example', true, jsonb_build_object('name', 'User ' || g)
       FROM generate_series(1, ?::int) g`,
    [projectId, projectId, n],
  );
  await db.knex.raw('ANALYZE contacts');
}

/** A project with keys, made through the real signup and project routes. */
export async function benchProject(stack: BenchStack, name = 'bench'): Promise<{ projectId: string; publicKey: string; secretKey: string }> {
  const email = `bench-${crypto.randomBytes(4).toString('hex')}@example.test`;
  const signup = await fetch(`${stack.url}/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'bench password' }),
  });
  const cookie = signup.headers.get('set-cookie')!.split(';')[0];
  const project = await fetch(`${stack.url}/users/@me/projects`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ name }),
  });
  const body = (await project.json()) as { id: string; publicKey: string; secretKey: string };
  // The bench measures throughput, not the rate limiter.
  return { projectId: body.id, publicKey: body.publicKey, secretKey: body.secretKey };
}

/** Runs bench/loadClient.ts in a child process against `url` and returns its figures. */
export async function runRemoteLoad(url: string, authorization: string, body: unknown, concurrency: number, seconds: number): Promise<LoadResult> {
  const { execFile } = await import('node:child_process');
  const path = await import('node:path');
  const tsx = path.join(__dirname, '..', 'node_modules', '.bin', 'tsx');
  return new Promise((resolve, reject) => {
    execFile(
      tsx,
      [path.join(__dirname, 'loadClient.ts'), url, authorization, String(concurrency), String(seconds), JSON.stringify(body)],
      { maxBuffer: 64 << 20 },
      (err, stdout) => {
        if (err) return reject(err);
        resolve(JSON.parse(stdout.trim().split('\n').pop()!));
      },
    );
  });
}

/**
 * The real worker (worker/worker.ts) in its own process against the stack, as in production.
 * BENCH_WORKER_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles it.
 */
export function startWorkerProcess(stack: BenchStack, env: Record<string, string> = {}): ChildProcess {
  const root = path.resolve(__dirname, '..');
  const nodeArgs = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  return spawn(process.execPath, [...nodeArgs, '--import', 'tsx', path.join(root, 'worker', 'worker.ts')], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: stack.config.databaseUrl,
      TEMPORAL_ADDRESS: stack.server.address,
      TEMPORAL_TASK_QUEUE: stack.config.temporal.taskQueue,
      JWT_SECRET: stack.config.jwtSecret,
      LOG_LEVEL: 'warn',
      // The production shape's heap bound (scripts/topology.ts), unless the bench run sets its own.
      NODE_OPTIONS: serviceNodeOptions(APP_SERVICES.find((s) => s.name === 'worker')!, process.env.NODE_OPTIONS),
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

/** SIGTERM (the worker drains), SIGKILL after 10 s. */
export async function stopWorkerProcess(worker: ChildProcess | null): Promise<void> {
  if (!worker || worker.exitCode !== null) return;
  const gone = new Promise((r) => worker.once('exit', r));
  worker.kill('SIGTERM');
  await Promise.race([gone, new Promise((r) => setTimeout(r, 10_000))]);
  if (worker.exitCode === null) worker.kill('SIGKILL');
}

/** Prints a sideBySide result: both rates, their ratio against the target, and where the CPU went. */
export function reportSideBySide(labels: { floor: string; route: string }, r: { floor: LoadResult; route: LoadResult }, targetPercent: number): void {
  const width = Math.max(labels.floor.length, labels.route.length, 'route / floor'.length);
  const line = (label: string, text: string) => console.log(`  ${label.padEnd(width)} : ${text}`);
  line(labels.floor, fmt(r.floor));
  line(labels.route, fmt(r.route));
  line('route / floor', `${((r.route.perSecond / r.floor.perSecond) * 100).toFixed(0)}%  (target >= ${targetPercent}%)`);
  line('CPU, floor', `${formatCpu(r.floor.cpu!, { count: r.floor.requests, unit: 'request' })} (this process: the floor's client; the API idles)`);
  line('CPU, route', `${formatCpu(r.route.cpu!, { count: r.route.requests, unit: 'request' })} (this process: the API)`);
}
