/**
 * The development inbox of `npm start` (docs/providers.md): maildev catches what the SMTP transport
 * sends and shows it rendered on its web page, so a newcomer reads real emails without a provider.
 *
 * maildev runs as a child process rather than in ours: it installs SIGINT/SIGTERM handlers that
 * call process.exit, which would cut the worker's graceful shutdown short, and its state is
 * module-global.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type { DevInboxConfig } from '../lib/config';

export interface DevInboxOptions extends Pick<DevInboxConfig, 'host' | 'smtpPort' | 'webPort'> {
  /** Where caught messages are kept as .eml files, so they survive a restart. */
  mailDirectory: string;
  log?: (line: string) => void;
}

export interface DevInbox {
  /** The inbox page and its HTTP API (`/email`). */
  webUrl: string;
  stop(): Promise<void>;
}

export async function startDevInbox(opts: DevInboxOptions, timeoutMs = 60_000): Promise<DevInbox> {
  fs.mkdirSync(opts.mailDirectory, { recursive: true });
  const bin = require.resolve('maildev/bin/maildev');
  const child = spawn(
    process.execPath,
    [bin, '--ip', opts.host, '--smtp', String(opts.smtpPort), '--web', String(opts.webPort), '--mail-directory', opts.mailDirectory],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const forward = (buf: Buffer) => {
    output += buf;
    opts.log?.(buf.toString().trimEnd());
  };
  child.stdout.on('data', forward);
  child.stderr.on('data', forward);
  // If our process dies without stopping it (a crash at start), the inbox must not outlive it holding the ports.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const stop = () =>
    new Promise<void>((resolve) => {
      process.removeListener('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    });

  const webUrl = `http://${opts.host}:${opts.webPort}`;
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      // A port already taken makes maildev throw and exit: report that instead of talking to whatever holds the port.
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`maildev exited with code ${child.exitCode ?? child.signalCode}: ${output.trim()}`);
      // The SMTP line is printed once its listen succeeded; /config names the SMTP port of the maildev that answers.
      if (/SMTP Server running/.test(output) && (await smtpPortOf(webUrl)) === opts.smtpPort) break;
      if (Date.now() > deadline) throw new Error(`maildev not ready on ${webUrl} after ${timeoutMs} ms: ${output.trim()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { webUrl, stop };
}

async function smtpPortOf(webUrl: string): Promise<number | undefined> {
  try {
    const res = await fetch(`${webUrl}/config`, { signal: AbortSignal.timeout(1000) });
    // maildev reports the port as the string it was given.
    return res.ok ? Number(((await res.json()) as { smtpPort?: unknown }).smtpPort) : undefined;
  } catch {
    return undefined;
  }
}
