import crypto from 'node:crypto';
import { Worker } from '@temporalio/worker';
import type { WorkflowHandle } from '@temporalio/client';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { startSendgridSink, SendgridSink, SinkRecipient } from '../helpers/sendgridSink';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { bestVariant } from '../../db/campaignAbTest';
import { campaignStateQuery } from '../../temporal/contract';

// An hour lasts 0.36 s: a winnerAfter of 40 hours leaves 14.4 s to post the test group's events.
const SCALE = 0.0001;
const DOMAIN = 'ab-campaigns.example.com';

let h: Harness;
let sink: SendgridSink;

beforeAll(async () => {
  sink = await startSendgridSink();
  h = await startHarness({
    worker: true,
    env: { EMAIL_TRANSPORT: 'sendgrid', SENDGRID_API_KEY: 'SG.test-key', SENDGRID_API_URL: sink.url, WORKFLOW_TIME_SCALE: String(SCALE) },
  });
});
afterAll(async () => {
  await h?.stop();
  await sink?.stop();
});

// The winner is counted from SendGrid's events here; tracked first-party, they would be ignored (docs/tracking.md).
const base = {
  name: 'ab',
  subject: 'Plain subject',
  body: '<p>hi {{ email }}</p>',
  from: `news@${DOMAIN}`,
  audienceType: 'ALL',
  tracking: { opens: false, clicks: false },
};
const abTest = (over: Record<string, unknown> = {}) => ({
  subjects: ['A for {{ email }}', 'B for {{ email }}'],
  testPercent: 20,
  winnerAfter: { amount: 40, unit: 'hours' },
  metric: 'opens',
  ...over,
});

/** A project of its own (so "ALL" is exactly these contacts) with a verified domain. */
async function project(n: number) {
  const fx = await createProjectFixture(h);
  await verifiedDomain(h, fx.projectId, DOMAIN);
  const emails = Array.from({ length: n }, () => uniqueEmail('ab'));
  for (const email of emails) expect((await h.http.post('/contacts').set(bearer(fx.secretKey)).send({ email, subscribed: true })).status).toBe(201);
  const key = bearer(fx.secretKey);
  const api = {
    create: (body: Record<string, unknown>) =>
      h.http
        .post('/campaigns')
        .set(key)
        .send({ ...base, ...body }),
    put: (id: string, body: Record<string, unknown>) =>
      h.http
        .put(`/campaigns/${id}`)
        .set(key)
        .send({ ...base, ...body }),
    get: (id: string) => h.http.get(`/campaigns/${id}`).set(key),
    send: (id: string) => h.http.post(`/campaigns/${id}/send`).set(key).send({}),
    duplicate: (id: string) => h.http.post(`/campaigns/${id}/duplicate`).set(key).send({}),
    stats: async (id: string) => (await h.http.get(`/campaigns/${id}/stats`).set(key)).body,
  };
  return { fx, emails, api };
}

const statusOf = async (id: string) => (await h.deps.knex('campaigns').where({ id }).first()).status as string;
const received = (emails: string[]) => sink.recipients().filter((r) => emails.includes(r.email));
const handle = async (id: string) => (await h.deps.temporal.client()).workflow.getHandle(`campaign-${id}`);
/** What the Web UI shows as the execution's current details (the SDK's built-in metadata query). */
const currentDetails = async (hd: WorkflowHandle) =>
  ((await hd.query<{ currentDetails?: string }>('__temporal_workflow_metadata')).currentDetails ?? '') as string;

/** SendGrid Event Webhook events for a recipient the sink received, as providerEvents.test.ts posts them. */
const event = (fx: ProjectFixture, r: SinkRecipient, name: string) => ({
  email: r.email,
  timestamp: Math.floor(Date.now() / 1000),
  event: name,
  sg_event_id: crypto.randomBytes(12).toString('base64url'),
  sg_message_id: `${r.messageId}.filter0001.123.0`,
  email_id: r.customArgs.email_id,
  project_id: fx.projectId,
});
async function post(events: unknown[]) {
  const res = await h.http.post('/webhooks/sendgrid').set('Content-Type', 'application/json').send(JSON.stringify(events));
  expect(res.status).toBe(200);
  expect(res.body.data.applied).toBe(events.length);
}

/** The test group's recipients, once the sink has them all, by the subject they got (A or B). */
async function testGroup(emails: string[], size: number) {
  const got = await eventually(async () => (received(emails).length >= size ? received(emails) : null), 30_000, 50);
  return { got, a: got.filter((r) => r.subject.startsWith('A for ')), b: got.filter((r) => r.subject.startsWith('B for ')) };
}

describe('A/B subject test', () => {
  it('splits the test group evenly, holds the rest, sends the winner (most opens) to the rest once each, and reports variants', async () => {
    const { fx, emails, api } = await project(50);
    const created = await api.create({ abTest: abTest() });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    expect(created.body.data.abTest).toEqual(abTest());
    expect((await api.send(id)).status).toBe(200);

    // 20% of 50: ten recipients, five per subject, each subject rendered for its recipient.
    const { got, a, b } = await testGroup(emails, 10);
    expect(got).toHaveLength(10);
    expect(a).toHaveLength(5);
    expect(b).toHaveLength(5);
    for (const r of got) expect(r.subject).toBe(`${r.subject[0]} for ${r.email}`);
    const hd = await handle(id);
    await eventually(async () => (await currentDetails(hd)).startsWith('A/B test · waiting for winner until '), 10_000, 50);
    expect(await hd.query(campaignStateQuery)).toMatchObject({ status: 'SENDING', handedOver: 10, abTest: { phase: 'waiting' } });
    // The rest waits for the winner: nobody else got anything, no email row was written for them.
    expect(received(emails)).toHaveLength(10);
    expect(
      await h.deps
        .knex('emails')
        .where({ campaign_id: id })
        .count<{ n: string }[]>('* as n')
        .then(([r]) => Number(r.n)),
    ).toBe(10);
    expect(await statusOf(id)).toBe('SENDING');

    // The worker goes away during the wait and comes back: the durable timer and the stored split carry on.
    await h.stopWorker();
    // B is opened more often; A is clicked more, which the opens metric must not count.
    await post([...b.slice(0, 3).map((r) => event(fx, r, 'open')), event(fx, a[0], 'open'), event(fx, a[1], 'click'), event(fx, a[2], 'click')]);
    await h.startWorker();

    await eventually(async () => (await statusOf(id)) === 'SENT', 60_000);
    const all = received(emails);
    // Every recipient exactly once; the forty outside the test group got B, rendered for them.
    expect(new Set(all.map((r) => r.email)).size).toBe(50);
    expect(all).toHaveLength(50);
    const tested = new Set(got.map((r) => r.email));
    const rest = all.filter((r) => !tested.has(r.email));
    expect(rest).toHaveLength(40);
    for (const r of rest) expect(r.subject).toBe(`B for ${r.email}`);

    const stats = await api.stats(id);
    expect(stats).toMatchObject({ totalRecipients: 50, sent: 50, opened: 4, clicked: 2 });
    expect(stats.variants).toEqual([
      { subject: 'A for {{ email }}', sent: 5, opened: 1, clicked: 2, winner: false },
      { subject: 'B for {{ email }}', sent: 5, opened: 3, clicked: 0, winner: true },
    ]);
    const variants = await h.deps.knex('emails').where({ campaign_id: id }).select('ab_variant').count('* as n').groupBy('ab_variant').orderBy('ab_variant');
    expect(variants.map((v) => [v.ab_variant, Number(v.n)])).toEqual([
      [0, 5],
      [1, 5],
      [null, 40],
    ]);
    expect(await hd.query(campaignStateQuery)).toMatchObject({ status: 'SENT', handedOver: 50, abTest: { phase: 'rest' } });

    // Every run of the execution (the test group and its wait, then the rest) replays with today's code.
    const client = await h.deps.temporal.client();
    const histories = await eventually(async () => {
      const list = [];
      for await (const x of client.workflow.list({ query: `WorkflowId = 'campaign-${id}'` }).intoHistories()) list.push(x);
      return list.length === 2 ? list : null;
    });
    for await (const r of Worker.runReplayHistories({ workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! } }, histories))
      expect(r.error).toBeUndefined();
  }, 120_000);

  it('a tie keeps the first subject; with the clicks metric, opens do not count', async () => {
    const { fx, emails, api } = await project(8);
    const created = await api.create({ abTest: abTest({ testPercent: 50, winnerAfter: { amount: 20, unit: 'hours' }, metric: 'clicks' }) });
    const id = created.body.data.id as string;
    await api.send(id);
    const { a, b } = await testGroup(emails, 4);
    expect([a.length, b.length]).toEqual([2, 2]);
    // Opens on B only: under the clicks metric both rates are 0, a tie.
    await post(b.map((r) => event(fx, r, 'open')));
    await eventually(async () => (await statusOf(id)) === 'SENT', 60_000);
    const all = received(emails);
    expect(all).toHaveLength(8);
    const tested = new Set([...a, ...b].map((r) => r.email));
    for (const r of all.filter((x) => !tested.has(x.email))) expect(r.subject).toBe(`A for ${r.email}`);
    expect((await api.stats(id)).variants).toEqual([
      { subject: 'A for {{ email }}', sent: 2, opened: 0, clicked: 0, winner: true },
      { subject: 'B for {{ email }}', sent: 2, opened: 2, clicked: 0, winner: false },
    ]);
  }, 90_000);

  it('a cancel during the wait ends the campaign CANCELLED and the rest never goes out', async () => {
    const { fx, emails, api } = await project(10);
    const id = (await api.create({ abTest: abTest() })).body.data.id as string;
    await api.send(id);
    await testGroup(emails, 2);
    const hd = await handle(id);
    await eventually(async () => (await currentDetails(hd)).startsWith('A/B test · waiting for winner until '), 10_000, 50);
    expect((await h.http.post(`/campaigns/${id}/cancel`).set(bearer(fx.secretKey)).send({})).status).toBe(200);
    await eventually(async () => (await hd.describe()).status.name === 'CANCELLED');
    expect(await statusOf(id)).toBe('CANCELLED');
    expect(received(emails)).toHaveLength(2);
    expect((await h.deps.knex('campaigns').where({ id }).first()).ab_winner).toBeNull();
  }, 60_000);

  it('a pause during the wait does not delay the choice, only the hand-over of the rest, which follows the resume', async () => {
    const { fx, emails, api } = await project(10);
    const id = (await api.create({ abTest: abTest({ winnerAfter: { amount: 10, unit: 'hours' } }) })).body.data.id as string;
    await api.send(id);
    await testGroup(emails, 2);
    const hd = await handle(id);
    await eventually(async () => (await currentDetails(hd)).startsWith('A/B test · waiting for winner until '), 10_000, 50);
    expect((await h.http.post(`/campaigns/${id}/pause`).set(bearer(fx.secretKey)).send({})).status).toBe(200);
    // The winner is chosen when due although paused; nothing more goes out until the resume.
    await eventually(async () => (await h.deps.knex('campaigns').where({ id }).first()).ab_winner !== null, 30_000);
    await eventually(async () => (await hd.query(campaignStateQuery)).abTest?.phase === 'rest');
    expect(received(emails)).toHaveLength(2);
    expect(await statusOf(id)).toBe('PAUSED');
    expect((await h.http.post(`/campaigns/${id}/resume`).set(bearer(fx.secretKey)).send({})).status).toBe(200);
    await eventually(async () => (await statusOf(id)) === 'SENT', 30_000);
    expect(received(emails)).toHaveLength(10);
    expect(new Set(received(emails).map((r) => r.email)).size).toBe(10);
  }, 60_000);

  it('the winner is the best rate, compared exactly; ties and variants that sent nothing keep the first', () => {
    const v = (sent: number, opened: number, clicked = 0) => ({ sent, opened, clicked });
    expect(bestVariant([v(5, 1), v(5, 3)], 'opens')).toBe(1);
    expect(bestVariant([v(5, 2), v(5, 2), v(5, 2)], 'opens')).toBe(0);
    // 2/6 and 1/3 are the same rate; 3/7 is better than both.
    expect(bestVariant([v(6, 2), v(3, 1)], 'opens')).toBe(0);
    expect(bestVariant([v(6, 2), v(3, 1), v(7, 3)], 'opens')).toBe(2);
    expect(bestVariant([v(0, 0), v(4, 1)], 'opens')).toBe(1);
    expect(bestVariant([v(4, 0), v(0, 0)], 'opens')).toBe(0);
    expect(bestVariant([v(4, 4, 0), v(4, 0, 1)], 'clicks')).toBe(1);
  });

  it.each([
    ['one subject', 'abTest.subjects', { subjects: ['A'] }],
    ['six subjects', 'abTest.subjects', { subjects: ['1', '2', '3', '4', '5', '6'] }],
    ['an empty subject', 'abTest.subjects.1', { subjects: ['A', ''] }],
    ['a subject that is not valid Liquid', 'abTest.subjects.1', { subjects: ['A', '{% if %}'] }],
    ['a subject with a line break', 'abTest.subjects.1', { subjects: ['A', 'B\nC'] }],
    ['testPercent 0', 'abTest.testPercent', { testPercent: 0 }],
    ['testPercent 51', 'abTest.testPercent', { testPercent: 51 }],
    ['an unknown unit', 'abTest.winnerAfter.unit', { winnerAfter: { amount: 1, unit: 'fortnights' } }],
    ['a zero duration', 'abTest.winnerAfter.amount', { winnerAfter: { amount: 0, unit: 'hours' } }],
    ['an unknown metric', 'abTest.metric', { metric: 'replies' }],
  ])('refuses an abTest with %s: 422 naming %s, on create and replace', async (_, field, over) => {
    const { api } = await project(0);
    const draft = await api.create({});
    for (const res of [await api.create({ abTest: abTest(over) }), await api.put(draft.body.data.id, { abTest: abTest(over) })]) {
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.errors.map((e: any) => e.field)).toContain(field);
    }
  });

  it.each([
    ['a string', 'yes'],
    ['an array', [1, 2]],
    ['a number', 3],
  ])('refuses abTest as %s: 422 naming abTest', async (_, value) => {
    const { api } = await project(0);
    const res = await api.create({ abTest: value });
    expect(res.status).toBe(422);
    expect(res.body.error.errors.map((e: any) => e.field)).toContain('abTest');
  });

  it('shows abTest (null when none), sets it with PUT, removes it with null, and a duplicate keeps it', async () => {
    const { api } = await project(0);
    const plain = await api.create({});
    expect(plain.body.data.abTest).toBeNull();
    const id = plain.body.data.id as string;
    const withTest = await api.put(id, { abTest: abTest({ subjects: ['X', 'Y', 'Z'], metric: 'clicks' }) });
    expect(withTest.status).toBe(200);
    expect(withTest.body.abTest).toEqual(abTest({ subjects: ['X', 'Y', 'Z'], metric: 'clicks' }));
    expect((await api.get(id)).body.abTest).toEqual(withTest.body.abTest);
    const copy = await api.duplicate(id);
    expect(copy.body.abTest).toEqual(withTest.body.abTest);
    const removed = await api.put(id, { abTest: null });
    expect(removed.status).toBe(200);
    expect(removed.body.abTest).toBeNull();
    // PUT is a full replace: omitting it removes it too.
    await api.put(id, { abTest: abTest() });
    expect((await api.put(id, {})).body.abTest).toBeNull();
  });

  it('a campaign without abTest sends its own subject to everyone at once and its stats carry no variants', async () => {
    const { emails, api } = await project(5);
    const id = (await api.create({})).body.data.id as string;
    await api.send(id);
    await eventually(async () => (await statusOf(id)) === 'SENT');
    expect(received(emails).map((r) => r.subject)).toEqual(Array(5).fill('Plain subject'));
    const stats = await api.stats(id);
    expect(stats.sent).toBe(5);
    expect(stats).not.toHaveProperty('variants');
    expect(await (await handle(id)).query(campaignStateQuery)).not.toHaveProperty('abTest');
  });
});
