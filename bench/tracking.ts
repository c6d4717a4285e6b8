/**
 * First-party open and click tracking (docs/tracking.md). Prints:
 *   - campaign emails handed over per second with tracking off and on (the same campaign, N
 *     recipients each, its 2 KB body with five links, through the real API, `campaignSend` and
 *     worker processes of their own into the local SendGrid sink), in ABBAABBA order (off, on, on,
 *     off, twice), each from a vacuumed, analyzed and checkpointed database, and the ratio with the
 *     CPU per email of each process; once for each worker count W (default 1 and 2: where the
 *     worker's main thread binds, and where the machine's cores do);
 *   - the click redirect (`GET /t/c/<token>`, 302) under 200 concurrent clients in a process of
 *     their own for S seconds: requests per second, p50 and p99, and how many of the clicks the
 *     batched recording had written once the load stopped.
 * Usage: npx tsx bench/tracking.ts [N=5000] [S=10] [W=1,2]
 *        (internally: npx tsx bench/tracking.ts client <url> <concurrency> <seconds>)
 */
import http from 'node:http';
import path from 'node:path';
import { ChildProcess, execFile } from 'node:child_process';
import {
  startStack,
  benchProject,
  benchVerifiedDomain,
  seedContacts,
  BenchStack,
  startWorkerProcess,
  stopWorkerProcess,
  runLoad,
  LoadResult,
  fmt,
} from './stack';
import { startSendgridSink, SendgridSink } from '../test/helpers/sendgridSink';
import { signTrackingToken } from '../services/trackingTokens';
import { cpuMeter, CpuReport, formatCpu } from './cpu';

const DOMAIN = 'bench.example';
const SUBJECT = 'News for {{ name ?? "you" }}';
const LINKS = [
  'https://shop.example/spring',
  'https://shop.example/summer?utm_source=news&amp;utm_medium=email',
  'https://blog.example/post/42',
  'https://shop.example/cart',
  'https://help.example/',
];
const BODY = `<html><body><h1>Hello {{ name ?? "friend" }}</h1>${'<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore.</p>'.repeat(14)}${LINKS.map((l, i) => `<p><a href="${l}">Link ${i}</a></p>`).join('')}<a href="{{ unsubscribeUrl }}">Unsubscribe</a></body></html>`;
const CONCURRENCY = 200;

// ───────────────────────────── the click client (a child process) ─────────────────────────────

async function client(url: string, concurrency: number, seconds: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency + 16 });
  const get = () =>
    new Promise<boolean>((resolve, reject) => {
      const req = http.get(url, { agent, headers: { 'user-agent': 'Mozilla/5.0 (bench) Safari/605.1.15' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode === 302 && res.headers.location === 'https://shop.example/spring'));
      });
      req.on('error', reject);
    });
  const result = await runLoad(get, concurrency, seconds);
  process.stdout.write(`${JSON.stringify({ ...result, latencies: [] })}\n`);
}

function remoteClicks(url: string, concurrency: number, seconds: number): Promise<LoadResult> {
  const tsx = path.join(__dirname, '..', 'node_modules', '.bin', 'tsx');
  return new Promise((resolve, reject) => {
    execFile(tsx, [__filename, 'client', url, String(concurrency), String(seconds)], { maxBuffer: 64 << 20 }, (err, stdout) => {
      if (err) return reject(err);
      resolve(JSON.parse(stdout.trim().split('\n').pop()!));
    });
  });
}

// ───────────────────────────── campaigns ─────────────────────────────

async function projectWithAudience(stack: BenchStack, n: number) {
  const p = await benchProject(stack);
  await benchVerifiedDomain(stack, p.projectId, DOMAIN);
  await seedContacts(stack, p.projectId, n);
  return p;
}

/** One campaign's emails/s and CPU; its project (audience, emails) is deleted after it unless `keep`. */
async function sendCampaign(stack: BenchStack, sink: SendgridSink, n: number, tracking: boolean, roots: Record<string, number | undefined> = {}, keep = false) {
  const p = await projectWithAudience(stack, n);
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${p.secretKey}` };
  const created = await fetch(`${stack.url}/campaigns`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      name: 'bench',
      subject: SUBJECT,
      body: BODY,
      from: `news@${DOMAIN}`,
      audienceType: 'ALL',
      tracking: { opens: tracking, clicks: tracking },
    }),
  });
  const id = ((await created.json()) as { data: { id: string } }).data.id;
  // Every run starts from the same state: otherwise autovacuum of the audience just seeded, and
  // checkpoints, land inside whichever runs they happen to, and moved single runs by ±20 %.
  await stack.knex.raw('VACUUM ANALYZE');
  await stack.knex.raw('CHECKPOINT');
  const t0 = performance.now();
  const meter = cpuMeter(roots);
  const sent = await fetch(`${stack.url}/campaigns/${id}/send`, { method: 'POST', headers, body: '{}' });
  if (!sent.ok) throw new Error(`send failed: ${sent.status} ${await sent.text()}`);
  for (;;) {
    sink.clear();
    const row = await stack.knex('campaigns').where({ id }).first('status', 'sent_count');
    if (row.status === 'SENT') {
      const result = { id, perSecond: row.sent_count / ((performance.now() - t0) / 1000), sent: row.sent_count as number, cpu: meter.stop() };
      // The next run meets the same database, not one 20,000 rows larger per run before it.
      if (!keep) await stack.knex('projects').where({ id: p.projectId }).del();
      return result;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Tracking off and on in ABBAABBA order with `workers` worker processes; prints both rates, the ratio and the CPU per email. */
async function compare(stack: BenchStack, sink: SendgridSink, n: number, workers: ChildProcess[]) {
  // Warm-up: connections, JIT, the workflow bundle, in every worker.
  await sendCampaign(stack, sink, Math.min(n, 1000 * workers.length), true);
  const runs: Array<{ tracking: boolean; perSecond: number; id: string; sent: number; cpu: CpuReport }> = [];
  const roots: Record<string, number | undefined> = { Temporal: stack.server.process.pid };
  workers.forEach((w, i) => {
    roots[workers.length === 1 ? 'worker' : `worker ${i + 1}`] = w.pid;
  });
  for (const tracking of [false, true, true, false, false, true, true, false])
    runs.push({ tracking, ...(await sendCampaign(stack, sink, n, tracking, roots)) });
  const mean = (t: boolean) => runs.filter((r) => r.tracking === t).reduce((s, r) => s + r.perSecond, 0) / (runs.length / 2);
  const [off, on] = [mean(false), mean(true)];
  const rates = (t: boolean) =>
    runs
      .filter((r) => r.tracking === t)
      .map((r) => r.perSecond.toFixed(0))
      .join(', ');
  console.log(
    `tracking bench: campaigns of ${n} recipients, ${LINKS.length} links each, ABBAABBA order, ${workers.length} worker process${workers.length === 1 ? '' : 'es'}`,
  );
  console.log(`  tracking off : ${off.toFixed(0).padStart(6)} emails/s   (${rates(false)})`);
  console.log(`  tracking on  : ${on.toFixed(0).padStart(6)} emails/s   (${rates(true)})`);
  console.log(`  on / off     : ${((on / off) * 100).toFixed(1)} %   (target >= 90 %)`);
  // Where the CPU went, per email, each mode's two runs together ("this process" is the API and the sink).
  for (const t of [false, true]) {
    const mine = runs.filter((r) => r.tracking === t);
    const parts: Record<string, number> = {};
    for (const r of mine) for (const [k, v] of Object.entries(r.cpu.parts)) parts[k] = (parts[k] ?? 0) + v;
    const cpu: CpuReport = {
      seconds: mine.reduce((a, r) => a + r.cpu.seconds, 0),
      parts,
      machine: mine.reduce((a, r) => a + r.cpu.machine, 0) / mine.length,
    };
    console.log(`  CPU, tracking ${t ? 'on ' : 'off'}: ${formatCpu(cpu, { count: mine.reduce((a, r) => a + r.sent, 0), unit: 'email' })}`);
  }
}

async function main() {
  const n = Number(process.argv[2] ?? 5000);
  const seconds = Number(process.argv[3] ?? 10);
  // One worker process shows tracking's cost where the worker's main thread is the bottleneck; two
  // (the production shape's default, CLUSTER_WORKERS) where the machine's cores are.
  const counts = (process.argv[4] ?? '1,2').split(',').map(Number);
  const sink = await startSendgridSink();
  const stack = await startStack();
  const workers: ChildProcess[] = [];
  const workerEnv = {
    EMAIL_TRANSPORT: 'sendgrid',
    SENDGRID_API_KEY: 'SG.bench',
    SENDGRID_API_URL: sink.url,
    SEND_RATE_PER_SECOND: '1000000',
  };
  try {
    for (const count of counts) {
      while (workers.length < count) workers.push(startWorkerProcess(stack, workerEnv));
      while (workers.length > count) await stopWorkerProcess(workers.pop()!);
      await compare(stack, sink, n, workers);
    }
    // A small tracked campaign whose emails the clicks below name.
    const tracked = await sendCampaign(stack, sink, 100, true, {}, true);

    // A real tracked email's first link; its token as the email carried it.
    const email = await stack.knex('emails').where({ campaign_id: tracked.id }).whereNotNull('links').first('id', 'links');
    const url = `${stack.url}/t/c/${signTrackingToken(stack.config.jwtSecret, { kind: 'click', emailId: email.id, link: 0 })}`;
    await remoteClicks(url, 20, 2);
    // The warm-up's last hits are still in the batcher's window: let them land before counting.
    await new Promise((r) => setTimeout(r, 500));
    const before = Number((await stack.knex('email_engagements').count({ n: '*' }))[0].n);
    const load = await remoteClicks(url, CONCURRENCY, seconds);
    await new Promise((r) => setTimeout(r, 500));
    const recorded = Number((await stack.knex('email_engagements').count({ n: '*' }))[0].n) - before;
    console.log(`click redirect GET /t/c/<token>, ${CONCURRENCY} concurrent clients, ${seconds}s (client in its own process)`);
    console.log(`  ${fmt(load)}`);
    console.log(`  clicks recorded (batched, set-based) half a second after the load: ${recorded} of ${load.requests - load.errors}`);
  } finally {
    for (const w of workers) await stopWorkerProcess(w);
    await stack.stop();
    await sink.stop();
  }
}

if (process.argv[2] === 'client') {
  client(process.argv[3], Number(process.argv[4]), Number(process.argv[5])).catch((err) => {
    console.error(err);
    process.exit(1);
  });
} else {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
