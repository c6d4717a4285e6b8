/**
 * The production Temporal server on Postgres, as scripts/cluster.ts runs it: the databases and
 * their schema (idempotent), the server's configuration, the namespace and search attributes.
 * The binaries come from scripts/temporal-server.sh (built from the server's Go module).
 */
import { execFileSync, spawn, ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { ensureDatabase } from '../db/knex';
import { ensureSearchAttributes } from '../worker/searchAttributes';
import { TEMPORAL_DATABASES } from './topology';

export const ROOT = path.resolve(__dirname, '..');
export const TOOLS = {
  server: path.join(ROOT, '.tools', 'bin', 'temporal-server'),
  sqlTool: path.join(ROOT, '.tools', 'bin', 'temporal-sql-tool'),
  ui: path.join(ROOT, '.tools', 'ui', 'server'),
};

/** Builds (or copies from the machine-wide cache) the server, its SQL tool and the UI server. */
export function ensureServerTools(): void {
  execFileSync('bash', [path.join(ROOT, 'scripts', 'temporal-server.sh')], { stdio: 'inherit' });
}

/**
 * Ports of one server: the frontend's gRPC port P comes from TEMPORAL_ADDRESS; the other services
 * and the membership ring take the next nine (P+1 … P+9), so one number places the whole server.
 */
async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * The first of `n` consecutive free ports (a server takes ten), below 32,768: the server records
 * its membership ports in a Postgres smallint.
 */
export async function freePortRange(n = 10): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const first = 20_000 + Math.floor(Math.random() * 12_000);
    let ok = true;
    for (let p = first; p < first + n && ok; p++) ok = await portFree(p);
    if (ok) return first;
  }
  throw new Error(`no ${n} consecutive free ports`);
}

export function serverPorts(frontend: number) {
  return {
    frontend,
    history: frontend + 1,
    matching: frontend + 2,
    worker: frontend + 3,
    frontendMembership: frontend + 4,
    historyMembership: frontend + 5,
    matchingMembership: frontend + 6,
    workerMembership: frontend + 7,
    frontendHttp: frontend + 8,
    metrics: frontend + 9,
  };
}

/** Names of the server's two databases (the bench uses throwaway ones). */
export type TemporalDatabases = { default: string; visibility: string };

interface PgTarget {
  host: string;
  port: number;
  user: string;
  password: string;
}

export function pgTarget(databaseUrl: string): PgTarget {
  const u = new URL(databaseUrl);
  return {
    host: u.hostname || '127.0.0.1',
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username || 'postgres'),
    password: decodeURIComponent(u.password),
  };
}

const withDatabase = (databaseUrl: string, name: string) => {
  const u = new URL(databaseUrl);
  u.pathname = `/${name}`;
  return u.toString();
};

/**
 * Creates `temporal` and `temporal_visibility` on DATABASE_URL's server when missing, then brings
 * both schemas to the latest version the server binary embeds. Safe to run on every start: an
 * up-to-date schema is left alone, an older one is upgraded (docs/deployment.md).
 */
export async function applyTemporalSchema(databaseUrl: string, log: (line: string) => void, databases: TemporalDatabases = TEMPORAL_DATABASES): Promise<void> {
  const pg = pgTarget(databaseUrl);
  for (const [kind, db] of Object.entries(databases)) {
    await ensureDatabase(withDatabase(databaseUrl, db));
    const base = ['--plugin', 'postgres12', '--ep', pg.host, '-p', String(pg.port), '-u', pg.user, ...(pg.password ? ['--pw', pg.password] : []), '--db', db];
    const run = (args: string[]) => execFileSync(TOOLS.sqlTool, [...base, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    // Versioning tables only (version 0.0); on a database that has a schema it changes nothing.
    run(['setup-schema', '-v', '0.0']);
    run(['update-schema', '--schema-name', `postgresql/v12/${kind === 'default' ? 'temporal' : 'visibility'}`]);
    log(`schema of ${db}: version ${await schemaVersion(withDatabase(databaseUrl, db))}`);
  }
}

async function schemaVersion(databaseUrl: string): Promise<string | null> {
  const { Client } = await import('pg');
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const res = await client.query(`SELECT to_regclass('schema_version') AS t`);
    if (!res.rows[0].t) return null;
    const v = await client.query(`SELECT curr_version FROM schema_version LIMIT 1`);
    return v.rows[0]?.curr_version ?? '0.0';
  } finally {
    await client.end();
  }
}

/** The server's configuration: Postgres persistence and (advanced) visibility on Postgres. */
export function serverConfigYaml(opts: {
  databaseUrl: string;
  host: string;
  frontendPort: number;
  dynamicConfigFile: string;
  historyShards?: number;
  databases?: TemporalDatabases;
}): string {
  const pg = pgTarget(opts.databaseUrl);
  const databases = opts.databases ?? TEMPORAL_DATABASES;
  const p = serverPorts(opts.frontendPort);
  const store = (db: string, conns: number) => `
      sql:
        pluginName: "postgres12"
        databaseName: "${db}"
        connectAddr: "${pg.host}:${pg.port}"
        connectProtocol: "tcp"
        user: ${JSON.stringify(pg.user)}
        password: ${JSON.stringify(pg.password)}
        maxConns: ${conns}
        maxIdleConns: ${conns}
        maxConnLifetime: "1h"`;
  const service = (grpc: number, membership: number, http?: number) => `
    rpc:
      grpcPort: ${grpc}
      membershipPort: ${membership}
      bindOnIP: "${opts.host}"${http ? `\n      httpPort: ${http}` : ''}`;
  return `# Written by scripts/cluster.ts on every start; edit that file, not this one.
log:
  stdout: true
  level: warn

persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  # Fixed for the life of the database: changing it needs a new database.
  numHistoryShards: ${opts.historyShards ?? 4}
  datastores:
    postgres-default:${store(databases.default, 20)}
    postgres-visibility:${store(databases.visibility, 10)}

global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: "${opts.host}"
  metrics:
    prometheus:
      framework: "tally"
      timerType: "histogram"
      listenAddress: "${opts.host}:${p.metrics}"

services:
  frontend:${service(p.frontend, p.frontendMembership, p.frontendHttp)}
  history:${service(p.history, p.historyMembership)}
  matching:${service(p.matching, p.matchingMembership)}
  worker:${service(p.worker, p.workerMembership)}

clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: "active"
  currentClusterName: "active"
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: "frontend"
      rpcAddress: "${opts.host}:${p.frontend}"

dcRedirectionPolicy:
  policy: "noop"

dynamicConfigClient:
  filepath: ${JSON.stringify(opts.dynamicConfigFile)}
  pollInterval: "10s"
`;
}

/** Dynamic configuration: the server's defaults, but ids as long as the API allows. */
/**
 * `matching.useNewMatcher`: the matcher that dispatches a backlog by task priority, which the
 * service's starts set (temporal/priorities.ts); server 1.29 does not turn it on by itself.
 */
export const DYNAMIC_CONFIG_YAML = `limit.maxIDLength:
  - value: 255
    constraints: {}
matching.useNewMatcher:
  - value: true
    constraints: {}
`;

/** The Web UI server's configuration (its binary reads <root>/config/<env>.yaml). */
export function uiConfigYaml(opts: { temporalAddress: string; port: number; namespace: string; host?: string }): string {
  // Without \`host\` the UI server listens on every interface, and it has no login here.
  return `# Written by scripts/cluster.ts on every start.
temporalGrpcAddress: ${opts.temporalAddress}
host: ${opts.host ?? '127.0.0.1'}
port: ${opts.port}
enableUi: true
defaultNamespace: ${opts.namespace}
showTemporalSystemNamespace: false
notifyOnNewVersion: false
refreshInterval: 1m
cors:
  cookieInsecure: true
  allowOrigins:
    - "http://localhost:${opts.port}"
auth:
  enabled: false
`;
}

/** Where writeServerConfig puts the server's and the UI's configuration under `dir`. */
export function configPaths(dir: string) {
  const serverRoot = path.join(dir, 'temporal');
  return { serverRoot, uiRoot: path.join(dir, 'temporal-ui'), dynamicConfigFile: path.join(serverRoot, 'config', 'dynamicconfig.yaml') };
}

/** Writes the server's and the UI's configuration under `dir`; returns the roots their binaries take. */
export function writeServerConfig(dir: string, yaml: { server: string; ui: string }): { serverRoot: string; uiRoot: string } {
  const { serverRoot, uiRoot, dynamicConfigFile } = configPaths(dir);
  fs.mkdirSync(path.join(serverRoot, 'config'), { recursive: true });
  fs.mkdirSync(path.join(uiRoot, 'config'), { recursive: true });
  fs.writeFileSync(path.join(serverRoot, 'config', 'cluster.yaml'), yaml.server);
  fs.writeFileSync(dynamicConfigFile, DYNAMIC_CONFIG_YAML);
  fs.writeFileSync(path.join(uiRoot, 'config', 'cluster.yaml'), yaml.ui);
  return { serverRoot, uiRoot };
}

export const serverArgs = (serverRoot: string) => ['--root', serverRoot, '--config', 'config', '--env', 'cluster', '--allow-no-auth', 'start'];
export const uiArgs = (uiRoot: string) => ['--root', uiRoot, '--config', 'config', '--env', 'cluster', 'start'];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until the frontend answers; throws when `alive()` turns false or time runs out. */
export async function waitForFrontend(address: string, alive: () => boolean, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    if (!alive()) throw new Error('the Temporal server exited while starting (see its log)');
    try {
      const conn = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await conn.workflowService.getSystemInfo({});
        return;
      } finally {
        await conn.close();
      }
    } catch (err) {
      last = err;
      await sleep(500);
    }
  }
  throw new Error(`Temporal server at ${address} not ready after ${timeoutMs} ms: ${last}`);
}

/**
 * Registers the namespace (a fresh server has none besides `temporal-system`) and our search
 * attributes; waits until both are usable, since the server caches namespaces for a few seconds.
 */
export async function prepareNamespace(address: string, namespace: string, retentionDays = 3, timeoutMs = 120_000): Promise<void> {
  const conn = await Connection.connect({ address });
  try {
    try {
      await conn.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: { seconds: retentionDays * 86_400 } as any });
    } catch (err: any) {
      if (err?.code !== 6 && !/already exists|already registered/i.test(String(err?.message))) throw err;
    }
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        await conn.workflowService.describeNamespace({ namespace });
        await ensureSearchAttributes(conn, namespace);
        const listed = await conn.operatorService.listSearchAttributes({ namespace });
        if (listed.customAttributes?.ProjectId) return;
      } catch (err) {
        if (Date.now() > deadline) throw err;
      }
      if (Date.now() > deadline) throw new Error(`namespace ${namespace} not usable after ${timeoutMs} ms`);
      await sleep(500);
    }
  } finally {
    await conn.close();
  }
}

export interface ServerProcess {
  address: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * One production Temporal server on its own, for the benches (`BENCH_TEMPORAL=server`): schema,
 * configuration under `dir`, the process, the namespace. scripts/cluster.ts runs the same pieces
 * as one of its managed processes.
 */
export async function startServerProcess(opts: {
  databaseUrl: string;
  dir: string;
  port: number;
  namespace?: string;
  databases?: TemporalDatabases;
}): Promise<ServerProcess> {
  ensureServerTools();
  await applyTemporalSchema(opts.databaseUrl, () => undefined, opts.databases);
  const { serverRoot } = writeServerConfig(opts.dir, {
    server: serverConfigYaml({
      databaseUrl: opts.databaseUrl,
      host: '127.0.0.1',
      frontendPort: opts.port,
      dynamicConfigFile: configPaths(opts.dir).dynamicConfigFile,
      databases: opts.databases,
    }),
    ui: '',
  });
  const out = fs.openSync(path.join(opts.dir, 'temporal.log'), 'a');
  const child = spawn(TOOLS.server, serverArgs(serverRoot), { cwd: ROOT, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  const address = `127.0.0.1:${opts.port}`;
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
    });
  try {
    await waitForFrontend(address, () => child.exitCode === null);
    await prepareNamespace(address, opts.namespace ?? 'default');
  } catch (err) {
    await stop();
    throw err;
  }
  return { address, process: child, stop };
}
