import { spawn, ChildProcess, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { devServerSearchAttributeFlags } from './searchAttributes';

const ROOT = path.resolve(__dirname, '..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** TEMPORAL_CLI, then our own build in .tools/bin, then PATH; builds ours when none is found. */
function findTemporalCli(build = true): string {
  if (process.env.TEMPORAL_CLI) return process.env.TEMPORAL_CLI;
  const ours = path.join(ROOT, '.tools', 'bin', 'temporal');
  if (fs.existsSync(ours)) return ours;
  try {
    return execFileSync('sh', ['-c', 'command -v temporal'], { encoding: 'utf8' }).trim();
  } catch {
    /* not on PATH */
  }
  if (!build) throw new Error('Temporal CLI not found: run `npm run temporal-cli` (needs Go) or put `temporal` on PATH');
  execFileSync('bash', [path.join(ROOT, 'scripts', 'temporal-cli.sh')], { stdio: 'inherit' });
  return ours;
}

export interface DevServerOptions {
  port?: number;
  uiPort?: number;
  headless?: boolean;
  /** SQLite file; in-memory when omitted. */
  dbFile?: string;
  namespace?: string;
  log?: (line: string) => void;
}

export interface DevServer {
  address: string;
  uiUrl?: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

async function waitReady(address: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastErr: unknown;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new DevServerExited(`temporal dev server exited with code ${child.exitCode}`);
    try {
      const conn = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await conn.workflowService.describeNamespace({ namespace: 'default' });
        return;
      } finally {
        await conn.close();
      }
    } catch (err) {
      lastErr = err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`temporal dev server at ${address} not ready after ${timeoutMs} ms: ${lastErr}`);
}

export async function startDevServer(opts: DevServerOptions = {}): Promise<DevServer> {
  // A free port can be taken between our probe and the server's bind (tests start several servers at
  // once), and the dev server then exits at once: with a port of our own choosing, try another.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startDevServerOnce(opts);
    } catch (err) {
      if (opts.port !== undefined || attempt >= 3 || !(err instanceof DevServerExited)) throw err;
    }
  }
}

class DevServerExited extends Error {}

async function startDevServerOnce(opts: DevServerOptions): Promise<DevServer> {
  const bin = findTemporalCli();
  const port = opts.port ?? (await freePort());
  // The priority-aware matcher (temporal/priorities.ts): the CLI's dev server leaves it off.
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--log-level',
    'error',
    ...devServerSearchAttributeFlags(),
    '--dynamic-config-value',
    'matching.useNewMatcher=true',
  ];
  if (opts.namespace && opts.namespace !== 'default') args.push('--namespace', opts.namespace);
  if (opts.headless) args.push('--headless');
  else args.push('--ui-port', String(opts.uiPort ?? port + 1000));
  if (opts.dbFile) {
    fs.mkdirSync(path.dirname(opts.dbFile), { recursive: true });
    args.push('--db-filename', opts.dbFile);
  }
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const forward = (buf: Buffer) => opts.log?.(buf.toString().trimEnd());
  child.stdout?.on('data', forward);
  child.stderr?.on('data', forward);
  const address = `127.0.0.1:${port}`;
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    });
  try {
    await waitReady(address, child, 60_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return { address, uiUrl: opts.headless ? undefined : `http://localhost:${opts.uiPort ?? port + 1000}`, process: child, stop };
}
