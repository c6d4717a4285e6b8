/**
 * Messages per second through the SMTP submission server beside POST /v1/send's, in the same run,
 * with the CPU each process spent per message. Both servers run as processes of their own (the
 * API from api/server.ts, the submission server from submission/server.ts, as in production) on the
 * same database and Temporal dev server; the clients (HTTP keep-alive, and nodemailer's pool with
 * STARTTLS and AUTH once per pooled connection) run here. Each message is one recipient, and both
 * sides carry an idempotency key (Idempotency-Key; the Message-ID), so they do the same work in
 * Postgres. No worker runs: acceptance (rows committed, batch started) is measured, as in bench/send.ts.
 * Slices alternate ABBA (stack.ts sideBySide).
 * Usage: npx tsx bench/submission.ts [seconds]
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import nodemailer from 'nodemailer';
import { startStack, runLoad, postJson, benchProject, benchVerifiedDomain, sideBySide, fmt, type BenchStack } from './stack';
import { formatCpu } from './cpu';
import { freePortRange } from '../scripts/temporalServer';

const SECONDS = Number(process.argv[2] ?? 10);
const CONCURRENCY = 8;
const ROOT = path.resolve(__dirname, '..');

function serverProcess(stack: BenchStack, entry: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, entry)], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: stack.config.databaseUrl,
      TEMPORAL_ADDRESS: stack.server.address,
      TEMPORAL_TASK_QUEUE: stack.config.temporal.taskQueue,
      JWT_SECRET: stack.config.jwtSecret,
      RATE_LIMIT_PER_MINUTE: '100000000',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

async function until(what: string, child: ChildProcess, ready: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} exited while starting`);
    if (await ready().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`${what} did not start`);
}

const greets = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('data', (d) => {
      s.destroy();
      resolve(d.toString().startsWith('220'));
    });
    s.once('error', () => resolve(false));
  });

const stop = async (child: ChildProcess) => {
  if (child.exitCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([gone, new Promise((r) => setTimeout(r, 10_000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
};

async function main() {
  const stack = await startStack({ RATE_LIMIT_PER_MINUTE: '100000000' });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-submission-'));
  const [apiPort, smtpPort] = [await freePortRange(1), await freePortRange(1)];
  const api = serverProcess(stack, 'api/server.ts', { PORT: String(apiPort), API_HOST: '127.0.0.1', DATA_DIR: path.join(dataDir, 'api') });
  const submission = serverProcess(stack, 'submission/server.ts', {
    SUBMISSION_PORT: String(smtpPort),
    SUBMISSION_HOST: '127.0.0.1',
    DATA_DIR: path.join(dataDir, 'submission'),
  });
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const smtp = (secretKey: string) =>
    nodemailer.createTransport({
      host: '127.0.0.1',
      port: smtpPort,
      secure: false,
      requireTLS: true,
      tls: { rejectUnauthorized: false },
      auth: { user: 'bench', pass: secretKey },
      pool: true,
      maxConnections: CONCURRENCY,
      maxMessages: 1000,
    });
  try {
    await until('API', api, async () => (await fetch(`${apiUrl}/health`)).status < 500);
    await until('submission server', submission, () => greets(smtpPort));
    const p = await benchProject(stack);
    await benchVerifiedDomain(stack, p.projectId);
    const to = (i: number) => `user${i % 5000}@bench.example`;
    const viaApi = (seconds: number) =>
      runLoad(
        (i) =>
          postJson(
            `${apiUrl}/v1/send`,
            { to: to(i), from: { email: 'hi@bench.example', name: 'Bench' }, subject: 'Hello', body: '<p>Hi</p>', text: 'Hi' },
            { authorization: `Bearer ${p.secretKey}`, 'idempotency-key': crypto.randomUUID() },
          ),
        CONCURRENCY,
        seconds,
      );
    const pool = smtp(p.secretKey);
    const viaSmtp = (seconds: number) =>
      runLoad(
        async (i) => {
          const info = await pool.sendMail({ from: 'Bench <hi@bench.example>', to: to(i), subject: 'Hello', html: '<p>Hi</p>', text: 'Hi' });
          return info.accepted.length === 1;
        },
        CONCURRENCY,
        seconds,
      );
    // Warm-up: JIT, pooled connections (TLS and AUTH), prepared statements.
    await viaApi(2);
    await viaSmtp(2);
    const meter = { API: api.pid, submission: submission.pid, Temporal: stack.server.process?.pid };
    const r = await sideBySide(viaApi, viaSmtp, SECONDS, meter);
    pool.close();
    const perMessage = (x: typeof r.floor) => formatCpu(x.cpu!, { count: x.requests - x.errors, unit: 'msg' });
    console.log(`submission bench, ${CONCURRENCY} clients, ${SECONDS}s each side (ABBA slices), one recipient per message`);
    console.log(`  POST /v1/send      : ${fmt(r.floor).replace(/req\/s/, 'msg/s')}`);
    console.log(`  SMTP submission    : ${fmt(r.route).replace(/req\/s/, 'msg/s')}`);
    console.log(`  SMTP / API         : ${((r.route.perSecond / r.floor.perSecond) * 100).toFixed(0)}%`);
    console.log(`  CPU, /v1/send      : ${perMessage(r.floor)} (this process: the HTTP client)`);
    console.log(`  CPU, SMTP          : ${perMessage(r.route)} (this process: the SMTP client)`);
  } finally {
    await Promise.all([stop(api), stop(submission)]);
    await stack.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
