import crypto from 'node:crypto';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { startSendgridSink, SendgridSink, type SinkRecipient } from '../helpers/sendgridSink';
import { verifiedDomain } from '../helpers/fixtures';
import { parseCsv } from '../../lib/csv';

/**
 * The per-recipient report (GET /campaigns/:id/recipients, JSON pages and CSV) and "Unschedule"
 * (POST /campaigns/:id/unschedule): engagement arrives through the real SendGrid event webhook.
 */

let h: Harness;
let sink: SendgridSink;
const DOMAIN = 'recipients.example.com';

beforeAll(async () => {
  sink = await startSendgridSink();
  h = await startHarness({ worker: true, env: { EMAIL_TRANSPORT: 'sendgrid', SENDGRID_API_KEY: 'SG.test-key', SENDGRID_API_URL: sink.url } });
});
afterAll(async () => {
  await h?.stop();
  await sink?.stop();
});

async function projectWith(n: number): Promise<{ fx: ProjectFixture; emails: string[] }> {
  const fx = await createProjectFixture(h);
  await verifiedDomain(h, fx.projectId, DOMAIN);
  const tag = crypto.randomBytes(3).toString('hex');
  const emails = Array.from({ length: n }, (_, i) => `r${i}-${tag}@example.org`);
  for (const email of emails) expect((await h.http.post('/contacts').set(bearer(fx.secretKey)).send({ email, subscribed: true })).status).toBe(201);
  return { fx, emails };
}

async function createCampaign(fx: ProjectFixture) {
  const res = await h.http
    .post('/campaigns')
    .set(bearer(fx.secretKey))
    // Engagement is SendGrid's here; tracked first-party, its opens and clicks would be ignored (docs/tracking.md).
    .send({ name: 'Report', subject: 'Hello', body: '<p>x</p>', from: `news@${DOMAIN}`, audienceType: 'ALL', tracking: { opens: false, clicks: false } });
  expect(res.status).toBe(201);
  return res.body.data.id as string;
}

const event = (fx: ProjectFixture, r: SinkRecipient, name: string) => ({
  email: r.email,
  timestamp: Math.floor(Date.now() / 1000),
  event: name,
  sg_event_id: crypto.randomBytes(12).toString('base64url'),
  sg_message_id: `${r.messageId}.filter0001.123.0`,
  email_id: r.customArgs.email_id,
  project_id: fx.projectId,
});

describe('GET /campaigns/:id/recipients', () => {
  it('lists each recipient with first delivery, open, click and bounce, filters by status, pages by cursor and exports CSV', async () => {
    const { fx, emails } = await projectWith(5);
    const id = await createCampaign(fx);
    expect((await h.http.post(`/campaigns/${id}/send`).set(bearer(fx.secretKey)).send({})).status).toBe(200);
    const got = await eventually(async () => {
      const r = sink.recipients().filter((x) => x.customArgs.campaign_id === id);
      return r.length === 5 ? r : null;
    });
    const by = (email: string) => got.find((r) => r.email === email)!;
    const events = [
      event(fx, by(emails[0]), 'delivered'),
      event(fx, by(emails[0]), 'open'),
      event(fx, by(emails[0]), 'click'),
      event(fx, by(emails[1]), 'delivered'),
      event(fx, by(emails[1]), 'open'),
      event(fx, by(emails[2]), 'bounce'),
    ];
    expect((await h.http.post('/webhooks/sendgrid').set('Content-Type', 'application/json').send(JSON.stringify(events))).status).toBe(200);

    const list = async (query: string, key = fx.secretKey) => h.http.get(`/campaigns/${id}/recipients${query}`).set(bearer(key));
    const all = await list('');
    expect(all.status).toBe(200);
    expect(all.body.data.map((r: { email: string }) => r.email).sort()).toEqual([...emails].sort());
    const first = all.body.data.find((r: { email: string }) => r.email === emails[0]);
    expect(first.openedAt).not.toBeNull();
    expect(first.clickedAt).not.toBeNull();
    expect(first.deliveredAt).not.toBeNull();
    expect(all.body.data.find((r: { email: string }) => r.email === emails[3]).openedAt).toBeNull();

    const emailsOf = async (status: string) => ((await list(`?status=${status}`)).body.data as { email: string }[]).map((r) => r.email).sort();
    expect(await emailsOf('opened')).toEqual([emails[0], emails[1]].sort());
    expect(await emailsOf('clicked')).toEqual([emails[0]]);
    expect(await emailsOf('bounced')).toEqual([emails[2]]);
    expect(await emailsOf('complained')).toEqual([]);

    // Pages of two, in order, with no repeat and none left out.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await list(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((r: { email: string }) => r.email));
      cursor = page.body.cursor;
      expect(page.body.hasMore).toBe(cursor !== null);
    } while (cursor);
    expect(seen.sort()).toEqual([...emails].sort());

    const csv = await list('?status=opened&format=csv');
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const rows = parseCsv(csv.text);
    expect(rows[0].slice(0, 3)).toEqual(['email', 'contactId', 'status']);
    expect(
      rows
        .slice(1)
        .filter((r) => r.length > 1)
        .map((r) => r[0])
        .sort(),
    ).toEqual([emails[0], emails[1]].sort());

    const bad = await list('?status=read');
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toMatch(/Status must be one of delivered, opened/);
    expect((await list('?cursor=not-a-cursor')).status).toBe(400);
    const other = await createProjectFixture(h);
    expect((await list('', other.secretKey)).status).toBe(404);
  });
});

describe('POST /campaigns/:id/unschedule', () => {
  it('takes a SCHEDULED campaign back to DRAFT; it can then be sent and goes out once', async () => {
    const { fx, emails } = await projectWith(2);
    const id = await createCampaign(fx);
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const scheduled = await h.http.post(`/campaigns/${id}/send`).set(bearer(fx.secretKey)).send({ scheduledFor: later });
    expect(scheduled.body.data.status).toBe('SCHEDULED');

    const res = await h.http.post(`/campaigns/${id}/unschedule`).set(bearer(fx.secretKey)).send({});
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('DRAFT');
    expect(res.body.scheduledFor).toBeNull();
    // The sleeping workflow is gone, so the draft's next send starts a run of its own.
    const description = await (await h.deps.temporal.client()).workflow.getHandle(`campaign-${id}`).describe();
    expect(description.status.name).toBe('TERMINATED');
    const audit = await h.deps.knex('audit_log').where({ project_id: fx.projectId, action: 'campaign.unschedule' });
    expect(audit).toHaveLength(1);

    // A DRAFT is not SCHEDULED: 409 naming the status.
    const again = await h.http.post(`/campaigns/${id}/unschedule`).set(bearer(fx.secretKey)).send({});
    expect(again.status).toBe(409);
    expect(again.body.error.message).toMatch(/DRAFT/);

    expect((await h.http.post(`/campaigns/${id}/send`).set(bearer(fx.secretKey)).send({})).status).toBe(200);
    await eventually(async () => (await h.deps.knex('campaigns').where({ id }).first()).status === 'SENT');
    const delivered = sink.recipients().filter((r) => r.customArgs.campaign_id === id);
    expect(delivered.map((r) => r.email).sort()).toEqual([...emails].sort());
  });

  it('is refused once the scheduled time is seconds away, and for another project', async () => {
    const { fx } = await projectWith(1);
    const id = await createCampaign(fx);
    await h.http
      .post(`/campaigns/${id}/send`)
      .set(bearer(fx.secretKey))
      .send({ scheduledFor: new Date(Date.now() + 3_600_000).toISOString() });
    const other = await createProjectFixture(h);
    expect((await h.http.post(`/campaigns/${id}/unschedule`).set(bearer(other.secretKey)).send({})).status).toBe(404);
    // The workflow may be waking: the row's guard keeps the last seconds for it.
    await h.deps
      .knex('campaigns')
      .where({ id })
      .update({ scheduled_for: new Date(Date.now() + 2_000) });
    const late = await h.http.post(`/campaigns/${id}/unschedule`).set(bearer(fx.secretKey)).send({});
    expect(late.status).toBe(409);
    expect(late.body.error.message).toMatch(/about to start/);
  });
});
