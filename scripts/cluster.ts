/**
 * `npm run cluster`: the production shape on one machine. A Temporal server on Postgres (schema
 * applied idempotently, advanced visibility on Postgres) with its Web UI, then CLUSTER_APIS API
 * processes on PORT, PORT+1, …, CLUSTER_WORKERS workers, CLUSTER_INBOUND inbound SMTP servers (on
 * INBOUND_SMTP_PORT, +1, …) and CLUSTER_SUBMISSION SMTP submission servers (on SUBMISSION_PORT, +1, …,
 * and SUBMISSION_TLS_PORT, +1, … when set), each a process of its own with a pid
 * file under DATA_DIR/cluster/. One Ctrl-C stops all of it. The fault tests (test/cluster/) drive
 * the same code through `startCluster`.
 */
import { spawn, ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { loadConfig, ConfigError } from '../lib/config';
import { createKnex, ensureDatabase, migrateLatest } from '../db/knex';
import { APP_SERVICES, CLUSTER_BIND_HOST, TEMPORAL_SERVICES, serviceNodeOptions } from './topology';
import { ensureWorkflowBundle } from './buildWorkflows';
import {
  ROOT,
  TOOLS,
  applyTemporalSchema,
  configPaths,
  ensureServerTools,
  prepareNamespace,
  serverArgs,
  serverConfigYaml,
  uiArgs,
  uiConfigYaml,
  waitForFrontend,
  writeServerConfig,
} from './temporalServer';

/** Worker i's metrics addresses: the configured ports shifted by 2·i, so replicas on one machine do not collide. */
export function workerMetricsEnv(env: NodeJS.ProcessEnv, i: number): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const name of ['WORKER_METRICS_ADDRESS', 'WORKER_APP_METRICS_ADDRESS'] as const) {
    const m = /^(.*):(\d+)$/.exec(env[name] ?? '');
    if (m) out[name] = `${m[1]}:${Number(m[2]) + 2 * i}`;
  }
  return out;
}

/**
 * The frontend port of TEMPORAL_ADDRESS. The cluster's server binds loopback only (it has no
 * authentication), so an address naming another interface is refused rather than silently unreachable.
 */
export function clusterTemporalPort(temporalAddress: string): string {
  const [host, portText] = temporalAddress.split(':');
  if (host !== CLUSTER_BIND_HOST && host !== 'localhost') {
    throw new Error(
      `TEMPORAL_ADDRESS: npm run cluster binds the Temporal server to ${CLUSTER_BIND_HOST} (it has no authentication; docs/deployment.md, "Securing Temporal"); use ${CLUSTER_BIND_HOST}:<port>, got ${temporalAddress}`,
    );
  }
  // The server records its membership ports (P+4 … P+7) in a Postgres smallint.
  if (!(Number(portText) > 0 && Number(portText) + 9 <= 32_767))
    throw new Error(`TEMPORAL_ADDRESS: the port must be at most 32758 (the server also takes the nine after it); got ${temporalAddress}`);
  return portText;
}

/** The Temporal server's and Web UI's configuration files for the cluster: every listener on loopback. */
export function clusterTemporalConfig(opts: { databaseUrl: string; temporalAddress: string; uiPort: number; namespace: string; dir: string }): {
  server: string;
  ui: string;
} {
  return {
    server: serverConfigYaml({
      databaseUrl: opts.databaseUrl,
      host: CLUSTER_BIND_HOST,
      frontendPort: Number(clusterTemporalPort(opts.temporalAddress)),
      dynamicConfigFile: configPaths(opts.dir).dynamicConfigFile,
    }),
    ui: uiConfigYaml({ temporalAddress: opts.temporalAddress, host: CLUSTER_BIND_HOST, port: opts.uiPort, namespace: opts.namespace }),
  };
}

export interface ClusterOptions {
  /** The environment every process gets (defaults to process.env); DATA_DIR, PORT etc. are read from it. */
  env?: NodeJS.ProcessEnv;
  apis?: number;
  workers?: number;
  /** Inbound SMTP servers, on INBOUND_SMTP_PORT, +1, … */
  inbound?: number;
  /** SMTP submission servers, on SUBMISSION_PORT, +1, … */
  submission?: number;
  /** Skip the Web UI (the fault tests do not need it). */
  ui?: boolean;
  log?: (line: string) => void;
}

interface Managed {
  name: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  ready: (child: ChildProcess) => Promise<void>;
  child?: ChildProcess;
}

export interface Cluster {
  dir: string;
  apiUrls: string[];
  /** Ports of the inbound SMTP servers. */
  inboundPorts: number[];
  /** STARTTLS ports of the SMTP submission servers. */
  submissionPorts: number[];
  temporalAddress: string;
  uiUrl?: string;
  /** The environment the app processes run with (DATABASE_URL, JWT_SECRET, …). */
  env: NodeJS.ProcessEnv;
  names(): string[];
  pid(name: string): number | undefined;
  /** Sends `signal` and waits for the process to exit. */
  kill(name: string, signal?: NodeJS.Signals): Promise<void>;
  /** Starts a stopped process again with the same command and environment, and waits until it is ready. */
  restart(name: string): Promise<void>;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `npm run <script>` without npm in between, so a pid file names the process doing the work. */
export function scriptCommand(script: string): { command: string; args: string[] } {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const line: string | undefined = pkg.scripts?.[script];
  const m = line && /^tsx\s+(\S+)$/.exec(line.trim());
  if (!m) throw new Error(`package.json script "${script}" is not "tsx <file>": ${line}`);
  return { command: process.execPath, args: ['--import', 'tsx', m[1]] };
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function waitFor(what: string, child: ChildProcess, check: () => Promise<boolean>, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${what} exited while starting (code ${child.exitCode ?? child.signalCode}); see its log`);
    if (await check().catch(() => false)) return;
    await sleep(300);
  }
  throw new Error(`${what} not ready after ${timeoutMs} ms`);
}

/** Whether an SMTP server answers its greeting on host:port. */
function smtpGreets(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, host);
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('data', (d) => done(d.toString().startsWith('220')));
  });
}

/** The JWT secret every replica shares: JWT_SECRET, or one generated once into the cluster's directory. */
function sharedSecret(env: NodeJS.ProcessEnv, dir: string): string {
  if (env.JWT_SECRET) return env.JWT_SECRET;
  const file = path.join(dir, 'jwt-secret');
  if (!fs.existsSync(file)) fs.writeFileSync(file, crypto.randomBytes(32).toString('base64url'), { mode: 0o600 });
  return fs.readFileSync(file, 'utf8').trim();
}

export async function startCluster(opts: ClusterOptions = {}): Promise<Cluster> {
  const baseEnv = { ...(opts.env ?? process.env) };
  const say = opts.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const dataDir = path.resolve(ROOT, baseEnv.DATA_DIR || '.data');
  const dir = path.join(dataDir, 'cluster');
  const logDir = path.join(dir, 'logs');
  fs.mkdirSync(logDir, { recursive: true });

  const temporalAddress = baseEnv.TEMPORAL_ADDRESS || `${CLUSTER_BIND_HOST}:7233`;
  // Refused before anything starts when it names an interface other than loopback.
  clusterTemporalPort(temporalAddress);
  const env: NodeJS.ProcessEnv = {
    ...baseEnv,
    CLUSTER_MODE: 'true',
    TEMPORAL_ADDRESS: temporalAddress,
    JWT_SECRET: sharedSecret(baseEnv, dir),
  };
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig({ ...env, DATA_DIR: dataDir });
  } catch (err) {
    if (err instanceof ConfigError) throw new Error(err.message);
    throw err;
  }
  const apis = opts.apis ?? Number(baseEnv.CLUSTER_APIS || APP_SERVICES[0].replicas.default);
  const workers = opts.workers ?? Number(baseEnv.CLUSTER_WORKERS || APP_SERVICES[1].replicas.default);
  const inbounds = opts.inbound ?? Number(baseEnv.CLUSTER_INBOUND || APP_SERVICES[2].replicas.default);
  const submissions = opts.submission ?? Number(baseEnv.CLUSTER_SUBMISSION || APP_SERVICES[3].replicas.default);
  for (const [name, n] of [
    ['CLUSTER_APIS', apis],
    ['CLUSTER_WORKERS', workers],
    ['CLUSTER_INBOUND', inbounds],
    ['CLUSTER_SUBMISSION', submissions],
  ] as const) {
    if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be an integer of at least 1`);
  }

  ensureServerTools();
  say(`applying the Temporal schema on ${new URL(config.databaseUrl).host}`);
  await applyTemporalSchema(config.databaseUrl, say);
  await ensureDatabase(config.databaseUrl);
  const knex = createKnex(config.databaseUrl);
  try {
    await migrateLatest(knex);
  } finally {
    await knex.destroy();
  }
  // Bundled once here, so every worker (and each restart) loads it instead of running webpack itself.
  if (config.temporal.workflowBundle !== 'off') await ensureWorkflowBundle(say);

  const { serverRoot, uiRoot } = writeServerConfig(
    dir,
    clusterTemporalConfig({ databaseUrl: config.databaseUrl, temporalAddress, uiPort: config.temporal.uiPort, namespace: config.temporal.namespace, dir }),
  );

  const processes = new Map<string, Managed>();
  const launch = async (m: Managed) => {
    const out = fs.openSync(path.join(logDir, `${m.name}.log`), 'a');
    const child = spawn(m.command, m.args, { cwd: ROOT, env: m.env, stdio: ['ignore', out, out] });
    fs.closeSync(out);
    m.child = child;
    fs.writeFileSync(path.join(dir, `${m.name}.pid`), `${child.pid}\n`);
    child.once('exit', () => {
      const pidFile = path.join(dir, `${m.name}.pid`);
      // A restarted process has written its own pid file by then.
      if (fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim() === String(child.pid)) fs.rmSync(pidFile);
    });
    try {
      await m.ready(child);
    } catch (err: any) {
      const tail = fs
        .readFileSync(path.join(logDir, `${m.name}.log`), 'utf8')
        .split('\n')
        .slice(-8)
        .map((line) => line.slice(0, 400))
        .join('\n');
      throw new Error(`${err?.message ?? err}\n--- last lines of ${m.name}.log:\n${tail}`);
    }
  };
  const add = async (m: Managed) => {
    processes.set(m.name, m);
    await launch(m);
  };

  // Workers are ready once they poll their task queue (a worker's default identity is `<pid>@<host>`).
  let probe: Promise<Connection> | undefined;
  const polling = async (child: ChildProcess) => {
    probe ??= Connection.connect({ address: temporalAddress }).catch((err) => {
      probe = undefined;
      throw err;
    });
    const res = await (await probe).workflowService.describeTaskQueue({
      namespace: config.temporal.namespace,
      taskQueue: { name: config.temporal.taskQueue, kind: 1 },
      taskQueueType: 1,
    });
    return (res.pollers ?? []).some((p) => p.identity?.startsWith(`${child.pid}@`));
  };

  const stop = async () => {
    // Apps first, so workers hand back their tasks before the server goes; the server last.
    const order = [...processes.values()].reverse();
    for (const m of order) if (m.child && m.child.exitCode === null && m.child.signalCode === null) m.child.kill('SIGTERM');
    await Promise.race([Promise.all(order.map((m) => (m.child ? exited(m.child) : undefined))), sleep(20_000)]);
    for (const m of order) if (m.child && m.child.exitCode === null && m.child.signalCode === null) m.child.kill('SIGKILL');
    await Promise.all(order.map((m) => (m.child ? exited(m.child) : undefined)));
    await probe?.then((c) => c.close()).catch(() => undefined);
  };

  try {
    await add({
      name: TEMPORAL_SERVICES.server,
      command: TOOLS.server,
      args: serverArgs(serverRoot),
      env: baseEnv,
      ready: (child) => waitForFrontend(temporalAddress, () => child.exitCode === null && child.signalCode === null),
    });
    say(`Temporal server (Postgres persistence and visibility) at ${temporalAddress}`);
    await prepareNamespace(temporalAddress, config.temporal.namespace);

    let uiUrl: string | undefined;
    if (opts.ui ?? true) {
      uiUrl = `http://localhost:${config.temporal.uiPort}`;
      await add({
        name: TEMPORAL_SERVICES.ui,
        command: TOOLS.ui,
        args: uiArgs(uiRoot),
        env: baseEnv,
        ready: (child) => waitFor('Temporal UI', child, async () => (await fetch(uiUrl!)).ok),
      });
      say(`Temporal Web UI at ${uiUrl}`);
    }

    const [apiService, workerService, inboundService, submissionService] = APP_SERVICES;
    const apiUrls: string[] = [];
    const starting: Promise<void>[] = [];
    for (let i = 0; i < apis; i++) {
      const port = config.port + i;
      const url = `http://127.0.0.1:${port}`;
      apiUrls.push(url);
      // Each replica keeps its own DATA_DIR, as it would on its own machine: nothing they share may live there.
      // Loopback unless the operator names another interface: the load balancer in front is what the world reaches.
      const replicaEnv = { ...env, PORT: String(port), API_HOST: env.API_HOST || CLUSTER_BIND_HOST, DATA_DIR: path.join(dir, `${apiService.name}-${i}`) };
      starting.push(
        add({
          name: `${apiService.name}-${i}`,
          ...scriptCommand(apiService.script),
          env: replicaEnv,
          ready: (child) => waitFor(`API ${i}`, child, async () => (await fetch(`${url}/health`)).status < 500),
        }),
      );
    }
    for (let i = 0; i < workers; i++) {
      starting.push(
        add({
          name: `${workerService.name}-${i}`,
          ...scriptCommand(workerService.script),
          env: {
            ...env,
            ...workerMetricsEnv(env, i),
            DATA_DIR: path.join(dir, `${workerService.name}-${i}`),
            NODE_OPTIONS: serviceNodeOptions(workerService, env.NODE_OPTIONS),
          },
          ready: (child) => waitFor(`worker ${i}`, child, () => polling(child)),
        }),
      );
    }
    const inboundPorts: number[] = [];
    for (let i = 0; i < inbounds; i++) {
      const port = config.inbound.port + i;
      inboundPorts.push(port);
      starting.push(
        add({
          name: `${inboundService.name}-${i}`,
          ...scriptCommand(inboundService.script),
          env: {
            ...env,
            INBOUND_SMTP_PORT: String(port),
            INBOUND_SMTP_HOST: env.INBOUND_SMTP_HOST || CLUSTER_BIND_HOST,
            DATA_DIR: path.join(dir, `${inboundService.name}-${i}`),
          },
          ready: (child) => waitFor(`inbound ${i}`, child, () => smtpGreets(env.INBOUND_SMTP_HOST || CLUSTER_BIND_HOST, port)),
        }),
      );
    }
    const submissionPorts: number[] = [];
    const submissionHost = env.SUBMISSION_HOST || CLUSTER_BIND_HOST;
    for (let i = 0; i < submissions; i++) {
      const port = config.submission.port + i;
      const tlsPort = config.submission.tlsPort === undefined ? undefined : config.submission.tlsPort + i;
      submissionPorts.push(port);
      starting.push(
        add({
          name: `${submissionService.name}-${i}`,
          ...scriptCommand(submissionService.script),
          env: {
            ...env,
            SUBMISSION_PORT: String(port),
            ...(tlsPort === undefined ? {} : { SUBMISSION_TLS_PORT: String(tlsPort) }),
            SUBMISSION_HOST: submissionHost,
            DATA_DIR: path.join(dir, `${submissionService.name}-${i}`),
          },
          ready: (child) => waitFor(`submission ${i}`, child, () => smtpGreets(submissionHost, port)),
        }),
      );
    }
    await Promise.all(starting);
    apiUrls.forEach((url, i) => {
      say(`API ${i} at ${url} (docs at ${url}/docs)`);
    });
    inboundPorts.forEach((port, i) => {
      say(`inbound SMTP ${i} on port ${port}`);
    });
    submissionPorts.forEach((port, i) => {
      say(`SMTP submission ${i} on port ${port} (STARTTLS)${config.submission.tlsPort === undefined ? '' : ` and ${config.submission.tlsPort + i} (TLS)`}`);
    });
    say(`${workers} worker(s) on task queue ${config.temporal.taskQueue}; pid files and logs in ${dir}`);

    return {
      dir,
      apiUrls,
      inboundPorts,
      submissionPorts,
      temporalAddress,
      uiUrl,
      env,
      names: () => [...processes.keys()],
      pid: (name) => processes.get(name)?.child?.pid,
      async kill(name, signal = 'SIGKILL') {
        const m = processes.get(name);
        if (!m?.child) throw new Error(`no process ${name}`);
        m.child.kill(signal);
        await exited(m.child);
      },
      async restart(name) {
        const m = processes.get(name);
        if (!m) throw new Error(`no process ${name}`);
        if (m.child && m.child.exitCode === null && m.child.signalCode === null) throw new Error(`${name} is still running`);
        await launch(m);
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

if (require.main === module) {
  (async () => {
    const cluster = await startCluster();
    process.stdout.write('cluster running; Ctrl-C stops every process\n');
    let stopping = false;
    const shutdown = async () => {
      if (stopping) return;
      stopping = true;
      process.stdout.write('stopping the cluster\n');
      await cluster.stop();
      process.exit(0);
    };
    process.on('SIGINT', shutdown);
    process.on('SIGTERM', shutdown);
  })().catch((err) => {
    process.stderr.write(`cluster failed: ${err?.message ?? err}\n`);
    process.exit(1);
  });
}
