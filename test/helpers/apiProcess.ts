import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../worker/devServer';
import { eventually } from './harness';

const ROOT = path.resolve(__dirname, '..', '..');

export interface ApiProcess {
  /** `http://127.0.0.1:<port>`, also its APP_URL. */
  url: string;
  port: number;
  /** What the process wrote (for failure messages). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * The real API entrypoint (`tsx api/server.ts`) in its own process, on the run's database and
 * Temporal server. For what jest's CommonJS sandbox cannot run: an ESM-only package loaded with a
 * real `import()` (services/sso.ts, openid-client). `port` may be chosen beforehand, when something
 * started first (an OpenID provider's redirect URI) must name it.
 */
export async function startApiProcess(env: Record<string, string>, port?: number): Promise<ApiProcess> {
  port ??= await freePort();
  const url = `http://127.0.0.1:${port}`;
  // Its own data directory: the entrypoint sweeps stale upload files there at start.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-api-'));
  let output = '';
  const child: ChildProcess = spawn(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['api/server.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      API_HOST: '127.0.0.1',
      APP_URL: url,
      TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS!,
      DATA_DIR: dataDir,
      EMAIL_TRANSPORT: 'log',
      AUTH_RATE_LIMIT_PER_MINUTE: '1000000',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`the API exited with ${child.exitCode}`);
        return (await fetch(`${url}/config`)).ok;
      },
      120_000,
      200,
    );
  } catch (err) {
    await stop();
    throw new Error(`${(err as Error).message}\nAPI output:\n${output}`);
  }
  return { url, port, output: () => output, stop };
}
