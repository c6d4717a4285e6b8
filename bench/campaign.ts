/**
 * A campaign of N recipients (default 100,000) sent through the real path: API → `campaignSend`
 * workflow → batch activities in a separate worker process → the local SendGrid sink. Prints:
 *   - emails handed over per second (send request → campaign SENT),
 *   - side by side, the sink's raw accept rate for the same batch size: the same kind of payloads
 *     (1000 personalizations, per-recipient bodies as substitutions) POSTed straight at it, one at a
 *     time like the workflow's batches,
 *   - CPU seconds during the send of the worker process, of the whole Postgres server, of the
 *     Temporal dev server and of this process (API and sink), and how busy the machine was (from
 *     /proc; one core = 100%),
 *   - the Temporal actions per campaign email: everything the campaign's project ran (`campaignSend`
 *     and its continue-as-new runs, the `routeEventBatch` of each group's `email.sent` events),
 *     counted after the floor; the warm-up campaign has a project of its own.
 * Usage: npx tsx bench/campaign.ts [N]
 */
import crypto from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { startStack, postRaw, benchProject, BenchStack, startWorkerProcess, stopWorkerProcess } from './stack';
import { startSendgridSink, SendgridSink } from '../test/helpers/sendgridSink';
import type { BatchRecipient } from '../services/transport';
import { sendgridBatchPayload, MAX_BATCH_RECIPIENTS } from '../services/sendgridTransport';
import { renderTemplate } from '../services/render';
import { linksFor } from '../lib/unsubscribe';
import { loadConfig } from '../lib/config';
import { cpuMeter, formatCpu } from './cpu';
import { countActions, formatActions, untilClosed } from './actions';

const N = Number(process.argv[2] ?? 100_000);
const DOMAIN = 'bench.example';
const SUBJECT = 'News for {{ name ?? "you" }}';
// About 2 KB of HTML, personalised twice: a realistic newsletter that still fits a substitution.
const BODY = `<html><body><h1>Hello {{ name ?? "friend" }}</h1>${'<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore.</p>'.repeat(16)}<a href="{{ unsubscribeUrl }}">Unsubscribe</a></body></html>`;

// ───────────────────────────── setup ─────────────────────────────

async function seed(stack: BenchStack, projectId: string, n: number): Promise<void> {
  await stack.knex.raw(
    `INSERT INTO contacts (id, project_id, email, subscribed, data)
     SELECT 'cnt_' || substr(md5(? || g::text), 1, 22), ?, 'user' || g || '@bench.example', true, jsonb_build_object('name', 'User ' || g)
       FROM generate_series(1, ?::int) g`,
    [projectId, projectId, n],
  );
  await stack.knex.raw('ANALYZE contacts');
}

const startWorker = (stack: BenchStack, sink: SendgridSink) =>
  // The per-project send throttle is lifted: the bench measures the pipeline, not the configured rate.
  startWorkerProcess(stack, { EMAIL_TRANSPORT: 'sendgrid', SENDGRID_API_KEY: 'SG.bench', SENDGRID_API_URL: sink.url, SEND_RATE_PER_SECOND: '1000000' });

/** Counts what the sink accepted and forgets the bodies, so a large run does not hold them all in memory. */
function drain(sink: SendgridSink, counter: { recipients: number; calls: number }) {
  counter.recipients += sink.recipientCount();
  counter.calls += sink.messages.length;
  sink.clear();
}

async function sendCampaign(stack: BenchStack, key: string, projectId: string, sink: SendgridSink, counter: { recipients: number; calls: number }) {
  const headers = { authorization: `Bearer ${key}` };
  const created = await fetch(`${stack.url}/campaigns`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ name: 'bench', subject: SUBJECT, body: BODY, from: `news@${DOMAIN}`, audienceType: 'ALL' }),
  });
  const id = ((await created.json()) as { data: { id: string } }).data.id;
  const t0 = performance.now();
  const sent = await fetch(`${stack.url}/campaigns/${id}/send`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });
  if (!sent.ok) throw new Error(`send failed: ${sent.status} ${await sent.text()}`);
  for (;;) {
    drain(sink, counter);
    const row = await stack.knex('campaigns').where({ id, project_id: projectId }).first('status', 'sent_count', 'total_recipients');
    if (row.status === 'SENT') return { seconds: (performance.now() - t0) / 1000, sent: row.sent_count as number, total: row.total_recipients as number };
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The same payloads the transport builds, serialized beforehand and POSTed one at a time straight at the sink. */
async function rawSinkRate(stack: BenchStack, sink: SendgridSink, projectId: string, recipients: number) {
  const samples: string[] = [];
  for (let s = 0; s < 5; s++) {
    const batch: BatchRecipient[] = [];
    for (let i = 0; i < MAX_BATCH_RECIPIENTS; i++) {
      const contactId = `cnt_${crypto.randomBytes(11).toString('hex')}`;
      const links = linksFor(stack.config, projectId, contactId);
      const r = await renderTemplate({ subject: SUBJECT, body: BODY }, { name: `User ${i}`, ...links });
      batch.push({ emailId: crypto.randomUUID(), to: { email: `raw${i}@bench.example` }, subject: r.subject, html: r.body, headers: { 'List-Unsubscribe': `<${links.unsubscribeUrl}>` } });
    }
    samples.push(JSON.stringify(sendgridBatchPayload({ projectId, campaignId: crypto.randomUUID(), from: { email: `news@${DOMAIN}` }, recipients: batch })));
  }
  const calls = Math.max(1, Math.ceil(recipients / MAX_BATCH_RECIPIENTS));
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) {
    // The bytes as serialized once: the floor is the sink's accept rate, not this loop's JSON work.
    const ok = await postRaw(`${sink.url}/v3/mail/send`, samples[i % samples.length], { authorization: 'Bearer SG.bench' });
    if (!ok) throw new Error('sink refused a raw batch');
    sink.clear();
  }
  const seconds = (performance.now() - t0) / 1000;
  return { seconds, perSecond: (calls * MAX_BATCH_RECIPIENTS) / seconds, calls, payloadBytes: Buffer.byteLength(samples[0]) };
}

async function waitForWorker(stack: BenchStack, worker: ChildProcess, key: string, projectId: string, sink: SendgridSink) {
  // A one-recipient campaign warms the worker (bundling, connections, JIT) before anything is timed.
  const warm = { recipients: 0, calls: 0 };
  const pending = sendCampaign(stack, key, projectId, sink, warm);
  const exited = new Promise<never>((_, reject) => worker.once('exit', (code) => reject(new Error(`worker exited with ${code}`))));
  await Promise.race([pending, exited]);
}

async function main() {
  const sink = await startSendgridSink();
  const stack = await startStack({ RATE_LIMIT_PER_MINUTE: '100000000' });
  let worker: ChildProcess | null = null;
  try {
    const warmProject = await benchProject(stack);
    const p = await benchProject(stack);
    for (const projectId of [warmProject.projectId, p.projectId]) {
      await stack.knex('domains').insert({ id: crypto.randomUUID(), project_id: projectId, domain: DOMAIN, token: 't', status: 'VERIFIED', records: '[]', verified_at: new Date() });
    }
    await seed(stack, warmProject.projectId, 1);
    await seed(stack, p.projectId, N);
    worker = startWorker(stack, sink);
    await waitForWorker(stack, worker, warmProject.secretKey, warmProject.projectId, sink);
    sink.clear();

    const meter = cpuMeter({ worker: worker.pid, Temporal: stack.server.process.pid });
    const counter = { recipients: 0, calls: 0 };
    const run = await sendCampaign(stack, p.secretKey, p.projectId, sink, counter);
    const cpu = meter.stop();
    const raw = await rawSinkRate(stack, sink, p.projectId, N);
    const client = await stack.temporal.client();
    const mine = `ProjectId = '${p.projectId}'`;
    await untilClosed(client, mine);
    const actions = await countActions(client, mine);

    console.log(`campaign bench: ${N} recipients, batches of ${MAX_BATCH_RECIPIENTS} (one provider call each), body ${Buffer.byteLength(BODY)} bytes of Liquid`);
    console.log(`  campaign (send → SENT)     : ${(run.sent / run.seconds).toFixed(0).padStart(7)} emails/s   ${run.seconds.toFixed(2)} s, ${run.sent}/${run.total} sent, sink got ${counter.recipients} recipients in ${counter.calls} calls`);
    console.log(`  sink raw accept, same size : ${raw.perSecond.toFixed(0).padStart(7)} emails/s   ${raw.calls} calls of ${(raw.payloadBytes / 1024 / 1024).toFixed(2)} MB in ${raw.seconds.toFixed(2)} s`);
    console.log(`  campaign / raw             : ${(((run.sent / run.seconds) / raw.perSecond) * 100).toFixed(0)}%`);
    console.log(`  CPU during the send        : ${formatCpu(cpu, { count: run.sent / 1000, unit: '1000 emails' })} (this process: the API and the sink)`);
    console.log(`  batch lanes                : ${loadConfig().campaigns.batchLanes}`);
    console.log(`  Temporal actions           : ${formatActions(actions.total, run.sent, 'email', 0.005)}, ${actions.executions} executions`);
    if (counter.recipients !== N || run.sent !== N) throw new Error(`expected ${N} emails, sink got ${counter.recipients}, campaign counted ${run.sent}`);
  } finally {
    await stopWorkerProcess(worker);
    await stack.stop();
    await sink.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
