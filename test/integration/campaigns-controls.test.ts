import fs from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { startHarness, createProjectFixture, bearer, eventually, Harness } from '../helpers/harness';
import { startSendgridSink, SendgridSink } from '../helpers/sendgridSink';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { workflowApi } from '../helpers/workflows';
import { startSecondWorker } from '../helpers/secondWorker';
import { localTime, nextLocalTime } from '../../lib/zonedTime';

// An hour lasts 0.36 s: recipients a day apart are handed over seconds apart, in order.
const SCALE = 0.0001;
const DOMAIN = 'ctl-campaigns.example.com';

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

const pad = (n: number) => String(n).padStart(2, '0');
const hhmm = (instant: number, zone: string) => {
  const l = localTime(instant, zone);
  return `${pad(l.hour)}:${pad(l.minute)}`;
};
const sinkFor = (email: string) => sink.recipients().filter((r) => r.email === email);

/** A project of its own (so "ALL" is exactly these contacts) with a verified domain and a sending policy. */
async function project(contacts: Array<{ email: string; data?: Record<string, unknown> }>, policy: Record<string, unknown> = {}) {
  const fx = await createProjectFixture(h);
  await verifiedDomain(h, fx.projectId, DOMAIN);
  for (const ct of contacts)
    expect([200, 201]).toContain(
      (
        await h.http
          .post('/contacts')
          .set(bearer(fx.secretKey))
          .send({ subscribed: true, ...ct })
      ).status,
    );
  expect((await h.http.patch('/settings').set(bearer(fx.secretKey)).send(policy)).status).toBe(200);
  const api = {
    create: async (body: Record<string, unknown> = {}) => {
      const res = await h.http
        .post('/campaigns')
        .set(bearer(fx.secretKey))
        .send({ name: 'c', subject: 'News', body: '<p>hi</p>', from: `news@${DOMAIN}`, audienceType: 'ALL', ...body });
      expect(res.status).toBe(201);
      return res.body.data.id as string;
    },
    send: (id: string, body: Record<string, unknown> = {}) => h.http.post(`/campaigns/${id}/send`).set(bearer(fx.secretKey)).send(body),
    get: async (id: string) =>
      (await h.http.get(`/campaigns/${id}`).set(bearer(fx.secretKey))).body.data ?? (await h.http.get(`/campaigns/${id}`).set(bearer(fx.secretKey))).body,
    stats: async (id: string) => (await h.http.get(`/campaigns/${id}/stats`).set(bearer(fx.secretKey))).body,
  };
  return { fx, api };
}

const statusOf = async (id: string) => (await h.deps.knex('campaigns').where({ id }).first()).status as string;

describe("campaigns in each recipient's time zone", () => {
  it('Tokyo and New York each get the campaign at their own 09:00; the campaign stays SENDING with pending until the last', async () => {
    const [tokyo, ny] = [uniqueEmail('tokyo'), uniqueEmail('ny')];
    const { api } = await project([
      { email: tokyo, data: { timezone: 'Asia/Tokyo' } },
      { email: ny, data: { timezone: 'America/New_York' } },
    ]);
    // The date of Tokyo's next 09:00, whatever the real hour: New York's 09:00 that date comes 13-14 h later.
    const tokyoNine = nextLocalTime(Date.now(), 'Asia/Tokyo', '09:00');
    const d = localTime(tokyoNine, 'Asia/Tokyo');
    const local = `${d.year}-${pad(d.month)}-${pad(d.day)}T09:00:00`;
    const id = await api.create();
    const res = await api.send(id, { scheduledFor: local, recipientTimezone: true });
    expect(res.status).toBe(200);

    const due = await eventually(async () => {
      const rows = await h.deps
        .knex('campaign_deferrals')
        .join('contacts', 'contacts.id', 'campaign_deferrals.contact_id')
        .where({ campaign_id: id })
        .select('contacts.email', 'due_at');
      return rows.length === 2 ? new Map(rows.map((r) => [r.email, new Date(r.due_at).getTime()])) : null;
    });
    expect(due.get(tokyo)).toBe(tokyoNine);
    expect(hhmm(due.get(ny)!, 'America/New_York')).toBe('09:00');
    expect(localTime(due.get(ny)!, 'America/New_York')).toMatchObject({ year: d.year, month: d.month, day: d.day });
    expect(await statusOf(id)).toBe('SENDING');
    expect((await api.stats(id)).pending).toBe(2);

    // Tokyo first: handed over while New York is still pending.
    await eventually(async () => sinkFor(tokyo).length === 1, 30_000, 50);
    expect(sinkFor(ny)).toHaveLength(0);
    expect(await statusOf(id)).toBe('SENDING');
    expect((await api.stats(id)).pending).toBe(1);

    await eventually(async () => (await statusOf(id)) === 'SENT', 30_000);
    expect(sinkFor(tokyo)).toHaveLength(1);
    expect(sinkFor(ny)).toHaveLength(1);
    expect(await api.stats(id)).toMatchObject({ sent: 2, pending: 0, totalRecipients: 2 });
  }, 60_000);

  it('recipients whose moment has passed when sending starts are sent at once', async () => {
    const [a, b] = [uniqueEmail('late'), uniqueEmail('late')];
    const { api } = await project([{ email: a, data: { timezone: 'Asia/Tokyo' } }, { email: b }]);
    const id = await api.create();
    expect((await api.send(id, { scheduledFor: '2020-01-01T09:00:00', recipientTimezone: true })).status).toBe(200);
    await eventually(async () => (await statusOf(id)) === 'SENT');
    expect(await api.stats(id)).toMatchObject({ sent: 2, pending: 0 });
    expect(await h.deps.knex('campaign_deferrals').where({ campaign_id: id })).toHaveLength(0);
  });

  it.each([['2026-12-01T09:00:00Z'], ['tomorrow'], [null]])('refuses scheduledFor %j with recipientTimezone: 422 naming scheduledFor', async (scheduledFor) => {
    const { api } = await project([]);
    const id = await api.create();
    const res = await api.send(id, { scheduledFor, recipientTimezone: true });
    expect(res.status).toBe(422);
    expect(res.body.error.errors[0].field).toBe('scheduledFor');
    expect(await statusOf(id)).toBe('DRAFT');
  });
});

describe('campaign quiet hours and frequency cap', () => {
  it('defers MARKETING recipients in their quiet hours to the end of their window; TRANSACTIONAL goes at once', async () => {
    const now = Date.now();
    // Nine hours on Tokyo's clock: New York (13-14 h behind) is outside the window at any real hour.
    const end = hhmm(now + 9 * 3_600_000, 'Asia/Tokyo');
    const [tokyo, ny] = [uniqueEmail('qt'), uniqueEmail('qn')];
    const { api } = await project([{ email: tokyo, data: { timezone: 'Asia/Tokyo' } }, { email: ny }], {
      timezone: 'America/New_York',
      quietHours: { start: hhmm(now - 1_800_000, 'Asia/Tokyo'), end },
    });
    const tx = await api.create({ type: 'TRANSACTIONAL', subject: 'Receipt' });
    await api.send(tx);
    const id = await api.create();
    await api.send(id);
    await eventually(async () => (await statusOf(tx)) === 'SENT');
    expect(sinkFor(tokyo).map((r) => r.subject)).toEqual(['Receipt']);

    const deferral = await eventually(async () => h.deps.knex('campaign_deferrals').where({ campaign_id: id }).first());
    expect(hhmm(new Date(deferral.due_at).getTime(), 'Asia/Tokyo')).toBe(end);
    await eventually(async () => sinkFor(ny).filter((r) => r.subject === 'News').length === 1);
    expect(sinkFor(tokyo).filter((r) => r.subject === 'News')).toHaveLength(0);
    expect(await statusOf(id)).toBe('SENDING');
    expect((await api.stats(id)).pending).toBe(1);
    await eventually(async () => (await statusOf(id)) === 'SENT', 30_000);
    expect(
      sinkFor(tokyo)
        .map((r) => r.subject)
        .sort(),
    ).toEqual(['News', 'Receipt']);
    expect(await api.stats(id)).toMatchObject({ sent: 2, pending: 0 });
  }, 60_000);

  it('a cap of 1 per day lets one of two MARKETING sends through per contact, across a campaign and a workflow running at once on two workers', async () => {
    const emails = Array.from({ length: 12 }, () => uniqueEmail('cap'));
    const { fx, api } = await project(
      emails.map((email) => ({ email })),
      { frequencyCap: { max: 1, per: 'day' } },
    );
    const wf = workflowApi(h, fx);
    const event = `cap-${Date.now()}`;
    const built = await wf.build(
      event,
      { send: { type: 'SEND_EMAIL', config: { subject: 'From the workflow', body: '<p>w</p>', from: `news@${DOMAIN}` } } },
      [['trigger', 'send']],
      { enabled: true },
    );
    const id = await api.create({ subject: 'From the campaign' });
    const stopSecond = await startSecondWorker(h);
    try {
      await Promise.all([api.send(id), ...emails.map((e) => wf.track(e, event))]);
      await eventually(async () => (await statusOf(id)) === 'SENT', 30_000);
      const executions = await eventually(async () => {
        const rows = await h.deps.knex('workflow_executions').where({ workflow_id: built.id }).whereIn('status', ['COMPLETED', 'FAILED']);
        return rows.length === emails.length ? rows : null;
      }, 30_000);
      expect(executions.every((e) => e.status === 'COMPLETED')).toBe(true);
      const steps = await h.deps
        .knex('workflow_execution_steps')
        .whereIn(
          'execution_id',
          executions.map((e) => e.id),
        )
        .where({ type: 'SEND_EMAIL' });
      const skipped = steps.filter((s) => s.status === 'SKIPPED');
      expect(skipped.every((s) => s.output.reason === 'frequency_cap')).toBe(true);
      const stats = await api.stats(id);
      // Every contact got exactly one of the two, whichever claimed first.
      expect(stats.capped + skipped.length).toBe(emails.length);
      expect(stats.sent + (steps.length - skipped.length)).toBe(emails.length);
      await eventually(async () => emails.every((e) => sinkFor(e).length === 1));
      for (const e of emails) expect(sinkFor(e)).toHaveLength(1);
    } finally {
      await stopSecond();
    }
  }, 90_000);
});

describe('delivery controls keep running executions replayable', () => {
  // Histories recorded before the delivery controls (encoded History protos): a campaign run with batch
  // lanes that finished, and a workflow execution whose SEND_EMAIL sent at once. Today's code must
  // take the same path when it replays them (patched()).
  it.each(['campaignSend-v2-lanes-finished', 'workflowExecution-send-email-v1'])('replays %s without nondeterminism', async (name) => {
    const history = temporal.api.history.v1.History.decode(fs.readFileSync(path.join(__dirname, '..', 'fixtures', `${name}.history.bin`)));
    expect(history.events.length).toBeGreaterThan(10);
    await Worker.runReplayHistory({ workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! } }, history, `${name}-replay`);
  });
});

describe('campaign send rate', () => {
  it('sendRatePerMinute is validated, kept, and paces the hand-over: batches of at most the rate, one at a time, each spreading its recipients over its share of the minute', async () => {
    const emails = Array.from({ length: 5 }, () => uniqueEmail('rate'));
    const { fx, api } = await project(emails.map((email) => ({ email })));
    const bad = await h.http
      .post('/campaigns')
      .set(bearer(fx.secretKey))
      .send({ name: 'r', subject: 'S', body: '<p>b</p>', from: `news@${DOMAIN}`, audienceType: 'ALL', sendRatePerMinute: 0 });
    expect(bad.status).toBe(422);
    expect(bad.body.error.errors.map((e: any) => e.field)).toContain('sendRatePerMinute');
    const id = await api.create({ sendRatePerMinute: 2 });
    const shown = (await h.http.get(`/campaigns/${id}`).set(bearer(fx.secretKey))).body;
    expect((shown.data ?? shown).sendRatePerMinute).toBe(2);
    await api.send(id);
    await eventually(async () => (await statusOf(id)) === 'SENT', 30_000);
    for (const e of emails) expect(sinkFor(e)).toHaveLength(1);

    const history = await (await h.deps.temporal.client()).workflow.getHandle(`campaign-${id}`).fetchHistory();
    const batches = history
      .events!.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'sendCampaignBatch')
      .map((e) => JSON.parse(Buffer.from(e.activityTaskScheduledEventAttributes!.input!.payloads![0].data!).toString()));
    expect(batches.map((b) => b.batchSize)).toEqual([2, 2, 2]);
    // Each batch paces itself at the campaign's rate (campaignPace.test.ts measures the spread); the
    // workflow no longer sleeps a minute's share after each.
    expect(batches.map((b) => b.ratePerMinute)).toEqual([2, 2, 2]);
    expect(history.events!.filter((e) => e.timerStartedEventAttributes)).toHaveLength(0);
  }, 60_000);
});
