import crypto from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { startSendgridSink, SendgridSink, SinkMessage } from '../helpers/sendgridSink';
import { startSecondWorker } from '../helpers/secondWorker';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { sendThrottleFor, RETRY_LEAD_MS } from '../../services/sendThrottle';

/** The workers' default; project B overrides it with its own, higher rate. */
const DEFAULT_RATE = 50;
const B_RATE = 100;
const DOMAIN = 'throttle.example.com';

let h: Harness;
let sink: SendgridSink;
let stopSecond: (() => Promise<void>) | undefined;
/** When the sink received each request: its recipients arrived then. */
const arrivals = new Map<SinkMessage, number>();

beforeAll(async () => {
  sink = await startSendgridSink();
  const push = sink.messages.push.bind(sink.messages);
  sink.messages.push = (...items: SinkMessage[]) => {
    const at = Date.now();
    for (const m of items) arrivals.set(m, at);
    return push(...items);
  };
  h = await startHarness({
    worker: true,
    env: {
      EMAIL_TRANSPORT: 'sendgrid',
      SENDGRID_API_KEY: 'SG.test-key',
      SENDGRID_API_URL: sink.url,
      SEND_RATE_PER_SECOND: String(DEFAULT_RATE),
      // Several batches, so the campaign's current details show the throttle while it still sends.
      CAMPAIGN_BATCH_SIZE: '100',
      RATE_LIMIT_PER_MINUTE: '100000',
    },
  });
  stopSecond = await startSecondWorker(h);
});
afterAll(async () => {
  await stopSecond?.();
  await h?.stop();
  await sink?.stop();
});

/** Every recipient the sink received for a project, with its arrival time. */
function received(projectId: string): { email: string; at: number }[] {
  return sink.messages.flatMap((m) =>
    m.body?.custom_args?.project_id === projectId
      ? (m.body.personalizations ?? []).flatMap((p: any) => (p.to ?? []).map((to: any) => ({ email: to.email as string, at: arrivals.get(m)! })))
      : [],
  );
}

/**
 * How far the busiest stretch of arrivals goes beyond `rate` per second plus one second's worth of
 * tolerance: over every pair of arrivals, the count between them against rate × span + rate.
 * Zero or less: the rate held.
 */
function worstExcess(times: number[], rate: number): number {
  const t = [...times].sort((a, b) => a - b);
  let worst = -Infinity;
  for (let i = 0; i < t.length; i++) for (let j = i; j < t.length; j++) worst = Math.max(worst, j - i + 1 - (rate * (t[j] - t[i])) / 1000 - rate);
  return worst;
}

const countBy = (emails: string[]) => emails.reduce((m, e) => m.set(e, (m.get(e) ?? 0) + 1), new Map<string, number>());

async function project(name: string): Promise<ProjectFixture> {
  const fx = await createProjectFixture(h, name);
  await verifiedDomain(h, fx.projectId, DOMAIN);
  return fx;
}

/** `n` subscribed contacts written directly (the contacts routes are tested elsewhere). */
async function contacts(fx: ProjectFixture, n: number): Promise<string[]> {
  const tag = crypto.randomBytes(3).toString('hex');
  const rows = Array.from({ length: n }, (_, i) => ({
    id: `cnt_${tag}${String(i).padStart(6, '0')}`,
    project_id: fx.projectId,
    email: `t${i}-${tag}@example.org`,
    subscribed: true,
    data: '{}',
  }));
  await h.deps.knex('contacts').insert(rows);
  return rows.map((r) => r.email);
}

async function campaign(fx: ProjectFixture): Promise<string> {
  const res = await h.http
    .post('/campaigns')
    .set(bearer(fx.secretKey))
    .send({ name: 'throttled', subject: 'News', body: '<p>news</p>', from: `news@${DOMAIN}`, audienceType: 'ALL' });
  expect(res.status).toBe(201);
  return res.body.data.id as string;
}

const sendTo = (fx: ProjectFixture, to: string[]) =>
  h.http
    .post('/v1/send')
    .set(bearer(fx.secretKey))
    .send({ to, from: `hi@${DOMAIN}`, subject: 'Hi', body: '<p>Hi</p>' });

/** The rates the campaign's batch activities reported being held to (their results, read from the workflow's history). */
async function batchRates(hd: WorkflowHandle): Promise<Set<number>> {
  const rates = new Set<number>();
  for (const e of (await hd.fetchHistory()).events ?? []) {
    const payload = e.activityTaskCompletedEventAttributes?.result?.payloads?.[0];
    const rate = payload && (defaultPayloadConverter.fromPayload(payload) as { pacing?: { ratePerSecond?: number } } | null)?.pacing?.ratePerSecond;
    if (typeof rate === 'number') rates.add(rate);
  }
  return rates;
}

const currentDetails = async (hd: WorkflowHandle) =>
  ((await hd.query<{ currentDetails?: string }>('__temporal_workflow_metadata')).currentDetails ?? '') as string;

describe('per-project send throttle', () => {
  it("two workers keep a project's 600 emails (/v1/send and a campaign) under its rate, another project runs at its own override alongside, nothing is dropped", async () => {
    // A: 500 through a campaign, 100 through /v1/send, at the workers' default rate.
    const a = await project('throttled A');
    const audienceA = await contacts(a, 500);
    const campaignA = await campaign(a);
    // B: 300 through a campaign at its own, higher rate; at A's rate they would take twice as long.
    const b = await project('throttled B');
    expect((await h.http.patch('/settings').set(bearer(b.secretKey)).send({ sendRatePerSecond: B_RATE })).body.sendRatePerSecond).toBe(B_RATE);
    const audienceB = await contacts(b, 300);
    const campaignB = await campaign(b);

    expect((await h.http.post(`/campaigns/${campaignA}/send`).set(bearer(a.secretKey)).send({})).status).toBe(200);
    // The /v1/send recipients become contacts too: they go once the campaign's audience is fixed.
    await eventually(async () => (await h.deps.knex('campaigns').where({ id: campaignA }).first()).total_recipients === 500, 30_000, 50);
    const single = Array.from({ length: 100 }, () => uniqueEmail('a-send'));
    for (const res of await Promise.all([0, 1, 2, 3].map((i) => sendTo(a, single.slice(i * 25, (i + 1) * 25))))) expect(res.status).toBe(200);
    // B starts while A's queue is long.
    await eventually(async () => received(a.projectId).length >= 100, 30_000, 50);
    expect((await h.http.post(`/campaigns/${campaignB}/send`).set(bearer(b.secretKey)).send({})).status).toBe(200);

    // While A's campaign sends, its current details show the project's throttle.
    const hd = (await h.deps.temporal.client()).workflow.getHandle(`campaign-${campaignA}`);
    const details = await eventually(
      async () => {
        const line = await currentDetails(hd);
        return line.startsWith('Sending') && line.includes(`project send rate ${DEFAULT_RATE}/s`) ? line : null;
      },
      60_000,
      100,
    );
    expect(details).toMatch(/^Sending · \d+ of 500 handed over · /);

    await eventually(async () => received(a.projectId).length >= 600 && received(b.projectId).length >= 300, 90_000, 200);
    for (const id of [campaignA, campaignB]) await eventually(async () => (await h.deps.knex('campaigns').where({ id }).first()).status === 'SENT', 30_000);

    const gotA = received(a.projectId);
    const gotB = received(b.projectId);
    // Nothing dropped, nothing twice.
    const perA = countBy(gotA.map((r) => r.email));
    expect([...perA.keys()].sort()).toEqual([...single, ...audienceA].sort());
    expect([...perA.values()].every((n) => n === 1)).toBe(true);
    const perB = countBy(gotB.map((r) => r.email));
    expect([...perB.keys()].sort()).toEqual([...audienceB].sort());
    expect([...perB.values()].every((n) => n === 1)).toBe(true);
    const statuses = await h.deps
      .knex('emails')
      .whereIn('project_id', [a.projectId, b.projectId])
      .groupBy('status')
      .select('status')
      .count<{ status: string; count: string }[]>('* as count');
    expect(Object.fromEntries(statuses.map((s) => [s.status, Number(s.count)]))).toEqual({ SENT: 900 });

    const timesA = gotA.map((r) => r.at);
    const timesB = gotB.map((r) => r.at);
    // A at the default rate, B at its own, each within one second's worth of tolerance.
    expect(worstExcess(timesA, DEFAULT_RATE)).toBeLessThanOrEqual(0);
    expect(worstExcess(timesB, B_RATE)).toBeLessThanOrEqual(0);
    // B is not held to the default: its batches were paced at its own rate (what the workers reserved
    // with, not a duration, so a loaded machine cannot make it flaky) ...
    const client = await h.deps.temporal.client();
    expect([...(await batchRates(client.workflow.getHandle(`campaign-${campaignB}`)))]).toEqual([B_RATE]);
    expect([...(await batchRates(hd))]).toEqual([DEFAULT_RATE]);
    // ... and not queued behind A: its 300 are all in while A's are still arriving.
    expect(Math.max(...timesB)).toBeLessThan(Math.max(...timesA));

    // The stats show what paced the campaigns.
    expect((await h.http.get(`/campaigns/${campaignA}/stats`).set(bearer(a.secretKey))).body).toMatchObject({
      sent: 500,
      pacing: { ratePerSecond: DEFAULT_RATE, source: 'project' },
    });
    expect((await h.http.get(`/campaigns/${campaignB}/stats`).set(bearer(b.secretKey))).body).toMatchObject({
      sent: 300,
      pacing: { ratePerSecond: B_RATE, source: 'project' },
    });
  }, 120_000);

  it("a campaign's own sendRatePerMinute below the project's rate is what its stats name", async () => {
    const fx = await project('paced');
    const created = await h.http
      .post('/campaigns')
      .set(bearer(fx.secretKey))
      .send({ name: 'slow', subject: 'S', body: '<p>b</p>', from: `news@${DOMAIN}`, audienceType: 'ALL', sendRatePerMinute: 120 });
    const id = created.body.data.id as string;
    const stats = async () => (await h.http.get(`/campaigns/${id}/stats`).set(bearer(fx.secretKey))).body.pacing;
    expect(await stats()).toEqual({ ratePerSecond: 2, source: 'campaign' });
    // A project rate below the campaign's pace wins.
    await h.http.patch('/settings').set(bearer(fx.secretKey)).send({ sendRatePerSecond: 1 });
    expect(await stats()).toEqual({ ratePerSecond: 1, source: 'project' });
  });
});

describe('reservations (services/sendThrottle on Postgres)', () => {
  const throttle = () => sendThrottleFor(h.deps.knex, { sendRatePerSecond: 10 }, { name: 'sendgrid' })!;

  it('an email whose slot is far off holds it: its retry finds the same slot, not a new one at the back', async () => {
    const fx = await project('holds');
    const t = throttle();
    // Ten seconds of queue at 10/s.
    expect(await t.group({ projectId: fx.projectId, count: 100, maxWaitMs: 60_000 }, { signal: AbortSignal.abort() })).toMatchObject({ go: true, rate: 10 });
    const firstId = crypto.randomUUID();
    const first = await t.email({ emailId: firstId, projectId: fx.projectId });
    const emailId = crypto.randomUUID();
    const held = await t.email({ emailId, projectId: fx.projectId });
    expect(held.go).toBe(false);
    if (held.go || first.go) throw new Error('unreachable');
    // Its slot is one interval after the previous email's: read from the holds themselves, since each
    // retry delay is counted from its own request, which a loaded machine can spread apart.
    const holds = await h.deps.knex('send_throttle_holds').whereIn('email_id', [firstId, emailId]);
    const slot = (id: string) => new Date(holds.find((r) => r.email_id === id).starts_at).getTime();
    expect(slot(emailId) - slot(firstId)).toBeGreaterThan(50);
    expect(slot(emailId) - slot(firstId)).toBeLessThan(150);
    expect(holds.find((r) => r.email_id === emailId).project_id).toBe(fx.projectId);
    // Coming back for it: the same slot (not 10 s + later), still far, so held again.
    const again = await t.email({ emailId, projectId: fx.projectId });
    if (again.go) throw new Error('expected a hold');
    expect(again.retryInMs).toBeLessThanOrEqual(held.retryInMs);
    expect(again.retryInMs).toBeGreaterThan(held.retryInMs - 1_000);
    expect(await h.deps.knex('send_throttle_holds').where({ email_id: emailId })).toHaveLength(1);
  });

  it('a campaign group whose slots begin beyond its longest wait reserves nothing and says when the queue ends', async () => {
    const fx = await project('groups');
    const t = throttle();
    await t.group({ projectId: fx.projectId, count: 50, maxWaitMs: 60_000 }, { signal: AbortSignal.abort() });
    const refused = await t.group({ projectId: fx.projectId, count: 5, maxWaitMs: 1_000 });
    expect(refused.go).toBe(false);
    if (refused.go) throw new Error('unreachable');
    // Five seconds of queue, less the lead.
    expect(refused.retryInMs).toBeGreaterThan(5_000 - RETRY_LEAD_MS - 500);
    expect(refused.retryInMs).toBeLessThanOrEqual(5_000 - RETRY_LEAD_MS);
    // Nothing was reserved: the queue still ends where it did.
    const after = await t.group({ projectId: fx.projectId, count: 1, maxWaitMs: 0 });
    if (after.go) throw new Error('expected a refusal');
    expect(after.retryInMs).toBeLessThanOrEqual(refused.retryInMs);
  });

  it('the log transport, which delivers nothing, is not throttled', () => {
    expect(sendThrottleFor(h.deps.knex, { sendRatePerSecond: 1 }, { name: 'log' })).toBeNull();
  });
});
