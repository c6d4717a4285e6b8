/**
 * A campaign of N recipients (default 100,000) sent through the real path: API → `campaignSend`
 * workflow → batch activities in a separate worker process → the local SendGrid sink. Prints:
 *   - emails handed over per second (send request → campaign SENT),
 *   - side by side, the sink's raw accept rate for the same batch size: the same kind of payloads
 *     (1000 personalizations, per-recipient bodies as substitutions) POSTed straight at it, one at a
 *     time like the workflow's batches,
 *   - side by side, a minimal-pipeline floor (issue 20): a node loop in this process that, per 1,000
 *     recipients (loaded into memory beforehand), renders the same Liquid subject and body with the
 *     same signed links and headers, writes the 1,000 email rows in one statement and posts the
 *     same payload to the sink; with the CPU per 1,000 emails of each process for both,
 *   - CPU seconds during the send of the worker process, of the whole Postgres server, of the
 *     Temporal dev server and of this process (API and sink), and how busy the machine was (from
 *     /proc; one core = 100%),
 *   - the Temporal actions per campaign email: everything the campaign's project ran (`campaignSend`
 *     and its continue-as-new runs, the `routeEventBatch` of each group's `email.sent` events),
 *     counted after the floor; the warm-up campaign has a project of its own.
 *   - the rate of the first and of the last tenth of the emails (a flat per-email cost keeps them
 *     equal), the worker's peak RSS during the send, and how much Postgres grew per email.
 * Above 100,000 recipients (BENCH_FLOOR_MAX) the raw-sink and floor comparisons are skipped (issue 44's
 * 1,000,000 run). BENCH_SLOW_STATEMENT_MS=200 logs the run database's slower statements in the server log.
 * Usage: npx tsx bench/campaign.ts [N]
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { startStack, postRaw, benchProject, benchVerifiedDomain, BenchStack, startWorkerProcess, stopWorkerProcess, NEWSLETTER, seedContacts } from './stack';
import { startSendgridSink, SendgridSink } from '../test/helpers/sendgridSink';
import type { BatchRecipient } from '../services/transport';
import { sendgridBatchPayload, MAX_BATCH_RECIPIENTS } from '../services/sendgridBatches';
import { renderTemplate } from '../services/render';
import { trackedBody } from '../services/emailTracking';
import { DEFAULT_TRACKING } from '../lib/trackingSettings';
import { identityVariables } from '../lib/contactData';
import { binaryTextArray } from '../db/binaryArrays';
import { listUnsubscribeHeaders } from '../lib/unsubscribe';
import type { CpuReport } from './cpu';
import { linksFor } from '../lib/unsubscribe';
import { loadConfig } from '../lib/config';
import { cpuMeter, formatCpu } from './cpu';
import { countActions, formatActions, untilClosed } from './actions';

const N = Number(process.argv[2] ?? 100_000);
/** Above this many recipients the raw-sink and floor comparisons are skipped (see main). */
const FLOOR_MAX = Number(process.env.BENCH_FLOOR_MAX ?? 100_000);
const DOMAIN = 'bench.example';
const { subject: SUBJECT, body: BODY } = NEWSLETTER;

// ───────────────────────────── setup ─────────────────────────────

const startWorker = (stack: BenchStack, sink: SendgridSink) =>
  // The per-project send throttle is lifted: the bench measures the pipeline, not the configured rate.
  startWorkerProcess(stack, { EMAIL_TRANSPORT: 'sendgrid', SENDGRID_API_KEY: 'SG.bench', SENDGRID_API_URL: sink.url, SEND_RATE_PER_SECOND: '1000000' });

/** Counts what the sink accepted and forgets the bodies, so a large run does not hold them all in memory. */
function drain(sink: SendgridSink, counter: { recipients: number; calls: number }) {
  counter.recipients += sink.recipientCount();
  counter.calls += sink.messages.length;
  sink.clear();
}

/** (seconds since the send request, sent_count) as the poll saw them: the rate of the first and the last tenth. */
type Progress = Array<[number, number]>;

/**
 * Emails/s between the first sample at or past `from` emails and the first at or past `to`. The
 * first tenth starts at the first email handed over (not at the send request, so the audience
 * snapshot is not in it): a flat cost per email means the two tenths' rates match.
 */
function rateBetween(progress: Progress, from: number, to: number): number {
  const a = progress.find(([, sent]) => sent >= Math.max(1, from));
  const b = progress.find(([, sent]) => sent >= to);
  if (!a || !b || b[0] <= a[0]) return Number.NaN;
  return (b[1] - a[1]) / (b[0] - a[0]);
}

/** The worker's resident memory, sampled every half second while the campaign sends (VmHWM also counts start-up bundling). */
function rssSampler(pid: number) {
  const read = (field: string) => {
    try {
      const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
      return m ? Number(m[1]) * 1024 : 0;
    } catch {
      return 0;
    }
  };
  let peak = read('VmRSS');
  const timer = setInterval(() => {
    peak = Math.max(peak, read('VmRSS'));
  }, 500);
  return {
    stop: () => {
      clearInterval(timer);
      return { peakDuringSend: Math.max(peak, read('VmRSS')), hwm: read('VmHWM') };
    },
  };
}

/** Bytes of the database and of the tables a campaign writes to. */
async function sizes(stack: BenchStack) {
  const r = await stack.knex.raw(
    `select pg_database_size(current_database()) as db,
            pg_total_relation_size('emails') as emails,
            pg_total_relation_size('events') as events`,
  );
  return r.rows[0] as { db: number; emails: number; events: number };
}

async function sendCampaign(
  stack: BenchStack,
  key: string,
  projectId: string,
  sink: SendgridSink,
  counter: { recipients: number; calls: number },
  progress: Progress = [],
) {
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
    progress.push([(performance.now() - t0) / 1000, row.sent_count]);
    if (row.status === 'SENT') return { id, seconds: (performance.now() - t0) / 1000, sent: row.sent_count as number, total: row.total_recipients as number };
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
      batch.push({
        emailId: crypto.randomUUID(),
        to: { email: `raw${i}@bench.example` },
        subject: r.subject,
        html: r.body,
        text: r.text,
        headers: { 'List-Unsubscribe': `<${links.unsubscribeUrl}>` },
      });
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

/**
 * The least a campaign of these recipients must do, as one node loop: render, one insert of 1,000
 * rows, one provider call. The payload is the campaign's own: the same signed links and, as a marketing
 * email's default, the tracking pixel. No Temporal, no claim, no snapshot, no status checks, no `email.sent` events.
 */
async function minimalPipeline(stack: BenchStack, sink: SendgridSink, projectId: string): Promise<{ seconds: number; emails: number; cpu: CpuReport }> {
  const contacts: Array<{ id: string; email: string; data: Record<string, unknown> }> = await stack
    .knex('contacts')
    .where({ project_id: projectId })
    .orderBy('id')
    .select('id', 'email', 'data');
  const meter = cpuMeter({ Temporal: stack.server.process.pid });
  const t0 = performance.now();
  for (let at = 0; at < contacts.length; at += MAX_BATCH_RECIPIENTS) {
    const recipients: BatchRecipient[] = [];
    for (const c of contacts.slice(at, at + MAX_BATCH_RECIPIENTS)) {
      const links = linksFor(stack.config, projectId, c.id);
      const r = await renderTemplate({ subject: SUBJECT, body: BODY }, { ...c.data, ...identityVariables(c), ...links });
      const emailId = crypto.randomUUID();
      recipients.push({
        emailId,
        to: { email: c.email },
        subject: r.subject,
        // The payload the campaign sends: a marketing email carries the open pixel by default (docs/tracking.md).
        html: trackedBody(stack.config, emailId, r.body, DEFAULT_TRACKING.MARKETING).body,
        text: r.text,
        headers: listUnsubscribeHeaders(links.unsubscribeUrl),
      });
    }
    await stack.knex.raw(
      `INSERT INTO emails (id, project_id, contact_id, type, to_email, from_email, subject, body, headers, rendered_subject, rendered_body, status)
       SELECT u.id::uuid, ?, u.contact_id, 'MARKETING', u.to_email, ?, ?, '', u.headers::jsonb, u.subject, u.body, 'SENT'
         FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[]) AS u(id, contact_id, to_email, headers, subject, body)`,
      [
        projectId,
        `news@${DOMAIN}`,
        SUBJECT,
        binaryTextArray(recipients.map((r) => r.emailId)),
        binaryTextArray(contacts.slice(at, at + MAX_BATCH_RECIPIENTS).map((c) => c.id)),
        binaryTextArray(recipients.map((r) => r.to.email)),
        binaryTextArray(recipients.map((r) => JSON.stringify(r.headers))),
        binaryTextArray(recipients.map((r) => r.subject)),
        binaryTextArray(recipients.map((r) => r.html)),
      ],
    );
    const payload = JSON.stringify(sendgridBatchPayload({ projectId, campaignId: crypto.randomUUID(), from: { email: `news@${DOMAIN}` }, recipients }));
    if (!(await postRaw(`${sink.url}/v3/mail/send`, payload, { authorization: 'Bearer SG.bench' }))) throw new Error('sink refused a floor batch');
    sink.clear();
  }
  return { seconds: (performance.now() - t0) / 1000, emails: contacts.length, cpu: meter.stop() };
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
    // Profiling aid: statements of the run's database slower than this land in the Postgres server log (new sessions: the worker's).
    const slowMs = Number(process.env.BENCH_SLOW_STATEMENT_MS ?? 0);
    if (slowMs > 0) {
      const db = new URL(stack.config.databaseUrl).pathname.slice(1);
      await stack.knex.raw(`ALTER DATABASE "${db}" SET log_min_duration_statement = ${Math.floor(slowMs)}`);
    }
    const warmProject = await benchProject(stack);
    const p = await benchProject(stack);
    for (const projectId of [warmProject.projectId, p.projectId]) await benchVerifiedDomain(stack, projectId, DOMAIN);
    await seedContacts(stack, warmProject.projectId, 1);
    await seedContacts(stack, p.projectId, N);
    worker = startWorker(stack, sink);
    await waitForWorker(stack, worker, warmProject.secretKey, warmProject.projectId, sink);
    sink.clear();

    await stack.knex.raw('CHECKPOINT');
    const before = await sizes(stack);
    const meter = cpuMeter({ worker: worker.pid, Temporal: stack.server.process.pid });
    const rss = rssSampler(worker.pid!);
    const counter = { recipients: 0, calls: 0 };
    const progress: Progress = [];
    const run = await sendCampaign(stack, p.secretKey, p.projectId, sink, counter, progress);
    const cpu = meter.stop();
    const memory = rss.stop();
    const after = await sizes(stack);
    // The floor loads every recipient into this process and writes as many rows again: past 100,000 it would
    // double a long run and measure this process's memory, so large runs report the campaign's own figures only.
    const withFloor = N <= FLOOR_MAX;
    const raw = withFloor ? await rawSinkRate(stack, sink, p.projectId, N) : null;
    const floor = withFloor ? await minimalPipeline(stack, sink, p.projectId) : null;
    const client = await stack.temporal.client();
    const mine = `ProjectId = '${p.projectId}'`;
    await untilClosed(client, mine);
    const actions = await countActions(client, mine);

    console.log(
      `campaign bench: ${N} recipients, batches of ${MAX_BATCH_RECIPIENTS} (one provider call each), body ${Buffer.byteLength(BODY)} bytes of Liquid`,
    );
    console.log(
      `  campaign (send → SENT)     : ${(run.sent / run.seconds).toFixed(0).padStart(7)} emails/s   ${run.seconds.toFixed(2)} s, ${run.sent}/${run.total} sent, sink got ${counter.recipients} recipients in ${counter.calls} calls`,
    );
    // Tenths of what was sent (the count check below says when that is not N).
    const first = rateBetween(progress, 0, run.sent / 10);
    const last = rateBetween(progress, run.sent - run.sent / 10, run.sent);
    const drift = (last / first - 1) * 100;
    console.log(
      Number.isNaN(drift)
        ? '  first tenth / last tenth   : n/a (a tenth is less than the polls can tell apart: use N ≥ 50,000)'
        : `  first tenth / last tenth   : ${first.toFixed(0).padStart(7)} / ${last.toFixed(0)} emails/s (${drift >= 0 ? '+' : ''}${drift.toFixed(1)} %) — target: last within 15 % of first: ${Math.abs(drift) <= 15 ? 'met' : 'not met'}`,
    );
    const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
    console.log(
      `  worker RSS                 : peak ${mb(memory.peakDuringSend)} during the send (sampled every 0.5 s), VmHWM ${mb(memory.hwm)} over its life — target ≤ 400 MB: ${memory.peakDuringSend <= 400 * 1024 * 1024 ? 'met' : 'not met'}`,
    );
    const per = (key: keyof typeof before) => `${((after[key] - before[key]) / run.sent).toFixed(0)} B`;
    console.log(`  Postgres growth per email  : ${per('db')} (database ${mb(before.db)} → ${mb(after.db)}; emails ${per('emails')}, events ${per('events')})`);
    if (!raw || !floor) {
      console.log(`  sink raw accept and floor  : skipped above ${FLOOR_MAX} recipients`);
    } else {
      console.log(
        `  sink raw accept, same size : ${raw.perSecond.toFixed(0).padStart(7)} emails/s   ${raw.calls} calls of ${(raw.payloadBytes / 1024 / 1024).toFixed(2)} MB in ${raw.seconds.toFixed(2)} s`,
      );
      console.log(`  campaign / raw             : ${((run.sent / run.seconds / raw.perSecond) * 100).toFixed(0)}%`);
      const floorRate = floor.emails / floor.seconds;
      const ratio = (run.sent / run.seconds / floorRate) * 100;
      console.log(
        `  minimal pipeline (floor)   : ${floorRate.toFixed(0).padStart(7)} emails/s   ${floor.seconds.toFixed(2)} s for ${floor.emails}: render, one 1,000-row insert, one sink call per 1,000`,
      );
      console.log(`  campaign / minimal floor   : ${ratio.toFixed(0)}% — target ≥ 70 %: ${ratio >= 70 ? 'met' : 'not met'}`);
      console.log(
        `  CPU of the floor           : ${formatCpu(floor.cpu, { count: floor.emails / 1000, unit: '1000 emails' })} (this process: the loop and the sink)`,
      );
    }
    console.log(`  CPU during the send        : ${formatCpu(cpu, { count: run.sent / 1000, unit: '1000 emails' })} (this process: the API and the sink)`);
    console.log(`  batch lanes                : ${loadConfig().campaigns.batchLanes}`);
    console.log(`  Temporal actions           : ${formatActions(actions.total, run.sent, 'email', 0.005)}, ${actions.executions} executions`);
    if (counter.recipients !== N || run.sent !== N) {
      // Where the missing recipients are: their email rows' states, and those set aside (frequency cap, deferrals).
      const statuses = await stack.knex('emails').where({ campaign_id: run.id }).groupBy('status').select('status').count({ n: '*' });
      const aside = await stack.knex.raw(
        `select (select count(*) from campaign_capped where campaign_id = ?) as capped,
                (select count(*) from campaign_deferrals where campaign_id = ?) as deferred,
                (select count(*) from campaign_recipients where campaign_id = ?) as snapshot`,
        [run.id, run.id, run.id],
      );
      const failed = await stack.knex('emails').where({ campaign_id: run.id, status: 'FAILED' }).groupBy('error').select('error').count({ n: '*' }).limit(5);
      console.log('  missing recipients         :', JSON.stringify({ statuses, ...aside.rows[0], failed }));
      throw new Error(`expected ${N} emails, sink got ${counter.recipients}, campaign counted ${run.sent}`);
    }
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
