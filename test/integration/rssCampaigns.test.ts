import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { startSmtpSink, SmtpSink } from '../helpers/smtpSink';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { rssCampaignActivities } from '../../activities/rssCampaigns';
import { rssScheduleId } from '../../services/rssSchedules';

/**
 * RSS-to-email (docs/campaigns.md): a local HTTP feed server stands in for a blog (the harness runs with
 * WEBHOOK_ALLOW_PRIVATE so the guard lets loopback through, as the WEBHOOK step's tests do); runs go
 * through the real worker, the ordinary campaign send and the SMTP transport into the local relay.
 */

let h: Harness;
let sink: SmtpSink;
let feed: http.Server;
let feedUrl: string;
let items: Array<{ title: string; link: string; date: string }> = [];
const DOMAIN = 'rss.example.com';

const rss = () =>
  `<?xml version="1.0"?><rss version="2.0"><channel><title>Blog</title><link>https://blog.example.com</link><description>d</description>${items
    .map(
      (i) =>
        `<item><title>${i.title}</title><link>${i.link}</link><description>About ${i.title}</description><pubDate>${new Date(i.date).toUTCString()}</pubDate></item>`,
    )
    .join('')}</channel></rss>`;

beforeAll(async () => {
  sink = await startSmtpSink();
  feed = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/rss+xml' }).end(rss()));
  await new Promise<void>((r) => feed.listen(0, '127.0.0.1', r));
  feedUrl = `http://127.0.0.1:${(feed.address() as AddressInfo).port}/feed.xml`;
  h = await startHarness({ worker: true, env: { EMAIL_TRANSPORT: 'smtp', SMTP_URL: sink.url, WEBHOOK_ALLOW_PRIVATE: 'true' } });
});
afterAll(async () => {
  await h?.stop();
  await sink?.stop();
  await new Promise((r) => feed?.close(r));
});

async function setup(): Promise<{ fx: ProjectFixture; id: string; to: string }> {
  const fx = await createProjectFixture(h);
  await verifiedDomain(h, fx.projectId, DOMAIN);
  const to = uniqueEmail('rss');
  await h.http
    .post('/contacts')
    .set(bearer(fx.secretKey))
    .send({ email: to, data: { firstName: 'Ann' } });
  const t = await h.http
    .post('/templates')
    .set(bearer(fx.secretKey))
    .send({
      name: 'Digest',
      subject: 'This week',
      from: `blog@${DOMAIN}`,
      body: '<p>Hi {{ firstName }}</p>{% for item in items %}<h2>{{ item.title }}</h2><a href="{{ item.link }}">read</a>{% endfor %}',
    });
  expect(t.status).toBe(201);
  const c = await h.http
    .post('/campaigns')
    .set(bearer(fx.secretKey))
    .send({
      kind: 'RSS',
      name: 'Blog digest',
      feedUrl,
      schedule: { frequency: 'weekly', time: '09:30', timezone: 'Europe/Paris', weekday: 1 },
      template: t.body.id,
      audienceType: 'ALL',
    });
  expect(c.status).toBe(201);
  expect(c.body.data).toMatchObject({
    kind: 'RSS',
    feedUrl,
    template: t.body.id,
    status: 'DRAFT',
    schedule: { frequency: 'weekly', time: '09:30', timezone: 'Europe/Paris', weekday: 1 },
  });
  return { fx, id: c.body.data.id, to };
}

const runs = async (fx: ProjectFixture, id: string) => (await h.http.get(`/campaigns/${id}/runs`).set(bearer(fx.secretKey))).body.data as any[];

describe('RSS campaigns', () => {
  it('refuses a bad RSS body with field errors and leaves regular campaigns as they were', async () => {
    const fx = await createProjectFixture(h);
    const bad = await h.http
      .post('/campaigns')
      .set(bearer(fx.secretKey))
      .send({
        kind: 'RSS',
        name: 'x',
        feedUrl: 'ftp://x',
        schedule: { frequency: 'hourly', time: '25:00', timezone: 'Nowhere' },
        template: 'nope',
        audienceType: 'ALL',
      });
    expect(bad.status).toBe(422);
    const fields = JSON.stringify(bad.body);
    for (const f of ['feedUrl', 'schedule.frequency', 'schedule.time', 'schedule.timezone', 'template']) expect(fields).toContain(f);
    const regular = await h.http.post('/campaigns').set(bearer(fx.secretKey)).send({ name: 'x', audienceType: 'ALL' });
    expect(regular.status).toBe(422);
    expect(JSON.stringify(regular.body)).toContain('subject');
    expect(JSON.stringify(regular.body)).not.toContain('feedUrl');
  });

  it('activates, pauses and resumes its Schedule; a run with new items sends one email with them, a run with none sends nothing', async () => {
    const { fx, id, to } = await setup();
    expect((await h.http.post(`/campaigns/${id}/send`).set(bearer(fx.secretKey)).send({})).body.data.status).toBe('SCHEDULED');
    const schedule = (await h.deps.temporal.client()).schedule.getHandle(rssScheduleId(id));
    expect((await schedule.describe()).state.paused).toBe(false);
    expect((await h.http.post(`/campaigns/${id}/pause`).set(bearer(fx.secretKey))).body.status).toBe('PAUSED');
    expect((await schedule.describe()).state.paused).toBe(true);
    expect((await h.http.post(`/campaigns/${id}/resume`).set(bearer(fx.secretKey))).body.status).toBe('SCHEDULED');
    expect((await schedule.describe()).state.paused).toBe(false);

    items = [
      { title: 'First post', link: 'https://blog.example.com/1', date: '2026-11-01T10:00:00Z' },
      { title: 'Second post', link: 'https://blog.example.com/2', date: '2026-11-02T10:00:00Z' },
    ];
    expect((await h.http.post(`/campaigns/${id}/run`).set(bearer(fx.secretKey))).status).toBe(202);
    const mail = await eventually(async () => sink.mailsTo(to)[0]);
    const html = String((await sink.parse(mail)).html);
    expect(html).toContain('Hi Ann');
    expect(html).toContain('First post');
    expect(html).toContain('Second post');
    const [first] = await eventually(async () => ((await runs(fx, id)).length === 1 ? runs(fx, id) : null));
    expect(first).toMatchObject({ status: 'SENT', itemCount: 2 });
    expect(first.items.map((i: any) => i.title)).toEqual(['Second post', 'First post']);
    const child = await h.http.get(`/campaigns/${first.sentCampaignId}`).set(bearer(fx.secretKey));
    expect(child.body).toMatchObject({ kind: 'REGULAR', parentId: id });
    await eventually(async () => (await h.http.get(`/campaigns/${first.sentCampaignId}`).set(bearer(fx.secretKey))).body.status === 'SENT');
    expect((await runs(fx, id))[0]).toMatchObject({ status: 'SENT', emailsSent: 1 });

    // Nothing newer than the last send: a run is recorded, nothing is sent.
    expect((await h.http.post(`/campaigns/${id}/run`).set(bearer(fx.secretKey))).status).toBe(202);
    const second = await eventually(async () => ((await runs(fx, id)).length === 2 ? (await runs(fx, id))[0] : null));
    expect(second).toMatchObject({ status: 'NOTHING_NEW', itemCount: 0, sentCampaignId: null });
    expect(sink.mailsTo(to)).toHaveLength(1);

    // A newer item: only it goes.
    items.push({ title: 'Third post', link: 'https://blog.example.com/3', date: '2026-11-03T10:00:00Z' });
    await h.http.post(`/campaigns/${id}/run`).set(bearer(fx.secretKey));
    const third = await eventually(async () => sink.mailsTo(to)[1]);
    const thirdHtml = String((await sink.parse(third)).html);
    expect(thirdHtml).toContain('Third post');
    expect(thirdHtml).not.toContain('First post');

    expect((await h.http.post(`/campaigns/${id}/cancel`).set(bearer(fx.secretKey))).body.status).toBe('CANCELLED');
    await expect(schedule.describe()).rejects.toThrow();
  });

  it('answers 409 in the error envelope to a full replace (PUT) or an unschedule of an RSS campaign, and leaves it unchanged; a duplicate stays RSS', async () => {
    const { fx, id } = await setup();
    const put = await h.http
      .put(`/campaigns/${id}`)
      .set(bearer(fx.secretKey))
      .send({ name: 'Replaced', subject: 'S', body: '<p>B</p>', from: `blog@${DOMAIN}`, audienceType: 'ALL' });
    expect(put.status).toBe(409);
    expect(put.body).toMatchObject({ success: false, error: { statusCode: 409, details: { status: 'DRAFT' } } });
    expect(put.body.error.message).toBe('An RSS campaign is not replaced with PUT: cancel it and create another');
    expect(put.body.error.requestId).toEqual(expect.any(String));
    expect((await h.http.get(`/campaigns/${id}`).set(bearer(fx.secretKey))).body).toMatchObject({ name: 'Blog digest', kind: 'RSS', feedUrl });

    await h.http.post(`/campaigns/${id}/send`).set(bearer(fx.secretKey)).send({});
    const unschedule = await h.http.post(`/campaigns/${id}/unschedule`).set(bearer(fx.secretKey));
    expect(unschedule.status).toBe(409);
    expect(unschedule.body).toMatchObject({ success: false, error: { statusCode: 409, details: { status: 'SCHEDULED' } } });
    expect(unschedule.body.error.message).toMatch(/^An RSS campaign has no scheduled time/);
    expect((await h.http.get(`/campaigns/${id}`).set(bearer(fx.secretKey))).body.status).toBe('SCHEDULED');
    await h.http.post(`/campaigns/${id}/cancel`).set(bearer(fx.secretKey));

    // "Duplicate" of an RSS campaign is another RSS campaign, a DRAFT with the same feed and schedule.
    const copy = await h.http.post(`/campaigns/${id}/duplicate`).set(bearer(fx.secretKey));
    expect(copy.status).toBe(201);
    expect(copy.body).toMatchObject({ kind: 'RSS', status: 'DRAFT', name: 'Blog digest (copy)', feedUrl, schedule: { frequency: 'weekly', time: '09:30' } });
  });

  it('refuses a feed on a private address (the SSRF guard) and records the run as FAILED', async () => {
    const { fx, id } = await setup();
    await h.deps
      .knex('campaigns')
      .where({ id })
      .update({ rss: h.deps.knex.raw("jsonb_set(rss, '{feedUrl}', to_jsonb(?::text))", ['http://10.1.2.3/feed.xml']) });
    // The worker runs with WEBHOOK_ALLOW_PRIVATE (for the loopback feed above); the guard as deployed does not.
    const guarded = rssCampaignActivities({ ...h.deps, config: { ...h.config, webhookAllowPrivate: false } } as any);
    const result = await guarded.runRssCampaign({ campaignId: id, runId: crypto.randomUUID() });
    expect(result).toEqual({ status: 'FAILED', items: 0, sentCampaignId: null });
    const [run] = await runs(fx, id);
    expect(run.status).toBe('FAILED');
    expect(run.error).toMatch(/^refused: .*private/);
  });
});
