import crypto from 'node:crypto';
import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';
import { uniqueEmail } from '../helpers/fixtures';
import { seedCampaign, seedContacts, seedEmail, seedEvents, seedExecution, SeededContact, seedWorkflow } from '../helpers/feedFixtures';

/** GET /activity… and GET /analytics… on seeded emails and events with explicit timestamps. */

let h: Harness;
let p: ProjectFixture;
let q: ProjectFixture;
let c1: SeededContact;
let c2: SeededContact;
const tag = crypto.randomBytes(3).toString('hex');
const Q_MARK = `q-mark-${tag}`;
const now = Date.now();
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const ago = (ms: number) => new Date(now - ms);
const ids: Record<string, string> = {};

beforeAll(async () => {
  h = await startHarness();
  [p, q] = await Promise.all([createProjectFixture(h, 'activity p'), createProjectFixture(h, 'activity q')]);
  const k = h.deps.knex;
  [c1, c2] = await seedContacts(k, p.projectId, [{ email: uniqueEmail('one') }, { email: uniqueEmail('two') }]);
  ids.campA = await seedCampaign(k, p.projectId, {
    name: 'Campaign A',
    status: 'SENT',
    startedAt: ago(2 * HOUR),
    totalRecipients: 4,
    counters: { sent: 4, delivered: 3, opened: 2, clicked: 1, bounced: 1 },
  });
  ids.campB = await seedCampaign(k, p.projectId, {
    name: 'Campaign B',
    status: 'SENDING',
    startedAt: ago(3 * HOUR),
    totalRecipients: 10,
    counters: { sent: 6, opened: 3, failed: 1 },
  });
  // Started before the window the campaign routes are asked about below.
  await seedCampaign(k, p.projectId, { name: 'Old', status: 'SENT', startedAt: ago(3 * DAY), totalRecipients: 100, counters: { sent: 100, opened: 90 } });
  ids.scheduled = await seedCampaign(k, p.projectId, { name: 'Later', status: 'SCHEDULED', scheduledFor: new Date(now + DAY) });
  ids.e1 = await seedEmail(k, p.projectId, {
    contactId: c1.id,
    to: c1.email,
    subject: 'Hi one',
    status: 'CLICKED',
    campaignId: ids.campA,
    createdAt: ago(2 * HOUR),
  });
  ids.e2 = await seedEmail(k, p.projectId, {
    contactId: c2.id,
    to: c2.email,
    subject: 'Hi two',
    status: 'BOUNCED',
    campaignId: ids.campA,
    createdAt: ago(2 * HOUR),
  });
  ids.e3 = await seedEmail(k, p.projectId, {
    contactId: c2.id,
    to: c2.email,
    subject: 'News',
    status: 'SENT',
    campaignId: ids.campB,
    createdAt: ago(2 * HOUR),
  });
  ids.e4 = await seedEmail(k, p.projectId, {
    contactId: c1.id,
    to: c1.email,
    subject: 'Broken',
    status: 'FAILED',
    error: 'render failed: x',
    updatedAt: ago(30 * MIN),
  });
  const lifecycle = (emailId: string, contactId: string, names: string[], startMinutesAgo: number) =>
    names.map((name, i) => ({ name, contactId, at: ago((startMinutesAgo - i) * MIN), data: { emailId } }));
  await seedEvents(k, p.projectId, [
    ...lifecycle(ids.e1, c1.id, ['email.sent', 'email.delivered', 'email.opened', 'email.clicked'], 120),
    ...lifecycle(ids.e2, c2.id, ['email.sent', 'email.bounced'], 110),
    ...lifecycle(ids.e3, c2.id, ['email.sent'], 100),
    { name: 'signup', contactId: c1.id, at: ago(90 * MIN), data: { plan: 'pro' } },
    { name: 'contact.unsubscribed', contactId: c2.id, at: ago(10 * MIN), data: { source: 'api' } },
  ]);
  ids.workflow = await seedWorkflow(k, p.projectId, {
    name: 'Onboarding',
    eventName: 'signup',
    steps: [{ type: 'WAIT_FOR_EVENT', config: { eventName: 'purchase' } }],
  });
  ids.execution = await seedExecution(k, p.projectId, {
    workflowId: ids.workflow,
    contactId: c1.id,
    status: 'WAITING',
    waitingFor: 'purchase',
    waitingSince: ago(HOUR),
  });
  await seedExecution(k, p.projectId, { workflowId: ids.workflow, contactId: c2.id, status: 'COMPLETED' });

  // The other project: the same kinds of rows, each carrying Q_MARK somewhere visible.
  const [qc] = await seedContacts(k, q.projectId, [{ email: `${Q_MARK}@example.org` }]);
  ids.qContact = qc.id;
  const qCamp = await seedCampaign(k, q.projectId, { name: Q_MARK, status: 'SCHEDULED', scheduledFor: new Date(now + HOUR) });
  await seedCampaign(k, q.projectId, { name: Q_MARK, status: 'SENT', startedAt: ago(HOUR), totalRecipients: 1000, counters: { sent: 1000, opened: 999 } });
  const qEmail = await seedEmail(k, q.projectId, {
    contactId: qc.id,
    to: qc.email,
    subject: Q_MARK,
    status: 'CLICKED',
    campaignId: qCamp,
    createdAt: ago(HOUR),
  });
  await seedEmail(k, q.projectId, { contactId: qc.id, to: qc.email, subject: Q_MARK, status: 'FAILED', error: Q_MARK });
  await seedEvents(k, q.projectId, [
    ...lifecycle(qEmail, qc.id, ['email.sent', 'email.opened', 'email.clicked'], 50),
    { name: Q_MARK, contactId: qc.id, at: ago(5 * MIN) },
    { name: 'signup', contactId: qc.id, at: ago(5 * MIN) },
  ]);
  const qFlow = await seedWorkflow(k, q.projectId, { name: Q_MARK, eventName: 'signup' });
  await seedExecution(k, q.projectId, { workflowId: qFlow, contactId: qc.id, status: 'WAITING', waitingFor: Q_MARK });
});
afterAll(() => h?.stop());

const get = (path: string, key = p.secretKey) => h.http.get(path).set(bearer(key));

describe('GET /activity', () => {
  it('merges email lifecycle, failures, subscription changes and events into one newest-first feed', async () => {
    const res = await get('/activity?limit=100');
    expect(res.status).toBe(200);
    expect(res.body.hasMore).toBe(false);
    expect(res.body.data.map((a: { type: string }) => a.type)).toEqual([
      'unsubscribed',
      'failed',
      'event',
      'sent',
      'bounced',
      'sent',
      'clicked',
      'opened',
      'delivered',
      'sent',
    ]);
    const [unsub, failed, signup, , bounced] = res.body.data;
    expect(unsub).toEqual({
      id: expect.any(String),
      type: 'unsubscribed',
      occurredAt: ago(10 * MIN).toISOString(),
      contact: { id: c2.id, email: c2.email },
      email: null,
      event: { name: 'contact.unsubscribed', data: { source: 'api' } },
    });
    expect(failed).toMatchObject({
      id: ids.e4,
      occurredAt: ago(30 * MIN).toISOString(),
      email: { id: ids.e4, subject: 'Broken', to: c1.email, error: 'render failed: x' },
      event: null,
    });
    expect(signup).toMatchObject({ type: 'event', contact: { id: c1.id }, event: { name: 'signup', data: { plan: 'pro' } }, email: null });
    expect(bounced).toMatchObject({ contact: { id: c2.id, email: c2.email }, email: { id: ids.e2, subject: 'Hi two', campaignId: ids.campA }, event: null });
  });

  it('pages with a cursor across both sources without gaps or repeats', async () => {
    const all = (await get('/activity?limit=100')).body.data.map((a: { id: string; type: string }) => `${a.type}:${a.id}`);
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await get(`/activity?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      paged.push(...res.body.data.map((a: { id: string; type: string }) => `${a.type}:${a.id}`));
      cursor = res.body.cursor;
    } while (cursor);
    expect(paged).toEqual(all);
  });

  it('filters by type and time window, and rejects bad queries with 400', async () => {
    const some = await get('/activity?type=opened,failed');
    expect(some.body.data.map((a: { type: string }) => a.type)).toEqual(['failed', 'opened']);
    expect((await get('/activity?type=event')).body.data.map((a: { event: { name: string } }) => a.event.name)).toEqual(['signup']);
    expect((await get(`/activity?from=${ago(45 * MIN).toISOString()}`)).body.data.map((a: { type: string }) => a.type)).toEqual(['unsubscribed', 'failed']);
    for (const query of ['type=bogus', 'type=', 'limit=0', 'cursor=abc', 'to=soon']) {
      const res = await get(`/activity?${query}`);
      expect([query, res.status]).toEqual([query, 400]);
    }
  });
});

describe('GET /activity/stats, /recent-count, /types', () => {
  it('counts every type over the window', async () => {
    const res = await get('/activity/stats?days=1');
    expect(res.status).toBe(200);
    expect(res.body.counts).toEqual({
      sent: 3,
      delivered: 1,
      opened: 1,
      clicked: 1,
      bounced: 1,
      complained: 0,
      suppressed: 0,
      replied: 0,
      subscribed: 0,
      unsubscribed: 1,
      inbound: 0,
      failed: 1,
      event: 1,
    });
    expect(res.body.total).toBe(10);
    expect((await get('/activity/stats?days=999')).status).toBe(400);
  });

  it('counts the last minutes, optionally of some types', async () => {
    expect((await get('/activity/recent-count?minutes=60')).body).toEqual({ minutes: 60, since: expect.any(String), count: 2 });
    expect((await get('/activity/recent-count?minutes=60&type=failed')).body.count).toBe(1);
    expect((await get('/activity/recent-count')).body.count).toBe(2);
    expect((await get('/activity/recent-count?minutes=1441')).status).toBe(400);
  });

  it('lists the types with a description', async () => {
    const res = await get('/activity/types');
    expect(res.body.types.map((t: { type: string }) => t.type)).toEqual([
      'sent',
      'delivered',
      'opened',
      'clicked',
      'bounced',
      'complained',
      'suppressed',
      'replied',
      'subscribed',
      'unsubscribed',
      'inbound',
      'failed',
      'event',
    ]);
    expect(res.body.types.every((t: { description: string }) => t.description.length > 0)).toBe(true);
  });
});

describe('GET /activity/upcoming', () => {
  it('lists scheduled campaigns and active executions of the project', async () => {
    const res = await get('/activity/upcoming');
    expect(res.status).toBe(200);
    expect(res.body.campaigns).toEqual([{ id: ids.scheduled, name: 'Later', scheduledFor: new Date(now + DAY).toISOString() }]);
    expect(res.body.executions).toEqual([
      {
        id: ids.execution,
        workflowId: ids.workflow,
        workflowName: 'Onboarding',
        contactId: c1.id,
        contactEmail: c1.email,
        status: 'WAITING',
        waitingFor: 'purchase',
        waitingSince: ago(HOUR).toISOString(),
        wakeAt: null,
      },
    ]);
    expect((await get('/activity/upcoming?limit=x')).status).toBe(400);
  });
});

describe('GET /analytics/timeseries', () => {
  let own: ProjectFixture;
  beforeAll(async () => {
    own = await createProjectFixture(h, 'timeseries');
    const [c] = await seedContacts(h.deps.knex, own.projectId, [{ email: uniqueEmail() }]);
    const at = (iso: string) => new Date(iso);
    await seedEvents(h.deps.knex, own.projectId, [
      { name: 'email.opened', contactId: c.id, at: at('2024-01-01T00:30:00Z') },
      { name: 'email.opened', contactId: c.id, at: at('2024-01-01T01:10:00Z') },
      { name: 'email.opened', contactId: c.id, at: at('2024-01-01T01:59:59.999Z') },
      { name: 'email.opened', contactId: c.id, at: at('2024-01-02T05:00:00Z') },
      { name: 'email.clicked', contactId: c.id, at: at('2024-01-01T01:30:00Z') },
      { name: 'purchase', contactId: c.id, at: at('2024-01-01T03:00:00Z') },
      { name: 'contact.subscribed', contactId: c.id, at: at('2024-01-01T03:00:00Z') },
    ]);
    await seedEmail(h.deps.knex, own.projectId, { status: 'FAILED', updatedAt: at('2024-01-01T02:15:00Z') });
  });
  const series = (query: string) => get(`/analytics/timeseries?${query}`, own.secretKey);

  it('counts per UTC hour and day, empty buckets included', async () => {
    const hourly = await series('metric=opened&interval=hour&from=2024-01-01T00:00:00Z&to=2024-01-01T04:00:00Z');
    expect(hourly.status).toBe(200);
    expect(hourly.body).toEqual({
      metric: 'opened',
      interval: 'hour',
      from: '2024-01-01T00:00:00.000Z',
      to: '2024-01-01T04:00:00.000Z',
      total: 3,
      points: [
        { t: '2024-01-01T00:00:00.000Z', count: 1 },
        { t: '2024-01-01T01:00:00.000Z', count: 2 },
        { t: '2024-01-01T02:00:00.000Z', count: 0 },
        { t: '2024-01-01T03:00:00.000Z', count: 0 },
      ],
    });
    const daily = await series('metric=opened&interval=day&from=2024-01-01&to=2024-01-04');
    expect(daily.body.points).toEqual([
      { t: '2024-01-01T00:00:00.000Z', count: 3 },
      { t: '2024-01-02T00:00:00.000Z', count: 1 },
      { t: '2024-01-03T00:00:00.000Z', count: 0 },
    ]);
  });

  it('counts only [from, to) in partial buckets, and each metric its own rows', async () => {
    const partial = await series('metric=opened&interval=hour&from=2024-01-01T00:45:00Z&to=2024-01-01T01:30:00%2B00:00');
    expect(partial.body.points).toEqual([
      { t: '2024-01-01T00:00:00.000Z', count: 0 },
      { t: '2024-01-01T01:00:00.000Z', count: 1 },
    ]);
    const window = 'interval=day&from=2024-01-01&to=2024-01-02';
    expect((await series(`metric=clicked&${window}`)).body.total).toBe(1);
    expect((await series(`metric=events&${window}`)).body.total).toBe(1);
    expect((await series(`metric=subscribed&${window}`)).body.total).toBe(1);
    expect((await series(`metric=failed&${window}`)).body.total).toBe(1);
    expect((await series(`metric=sent&${window}`)).body.total).toBe(0);
    // The same window through another project's key sees none of it.
    expect((await get(`/analytics/timeseries?metric=opened&${window}`)).body.total).toBe(0);
  });

  it('defaults to the last 30 days by day, and bounds the window', async () => {
    const dflt = await series('metric=sent');
    expect(dflt.status).toBe(200);
    expect(dflt.body.points.length).toBeGreaterThanOrEqual(30);
    expect(dflt.body.points.length).toBeLessThanOrEqual(31);
    for (const query of [
      'metric=nope',
      'interval=day',
      'metric=sent&interval=week',
      'metric=sent&from=2024-01-02&to=2024-01-01',
      'metric=sent&from=2024-01-01&to=2024-01-01',
      'metric=sent&interval=day&from=2024-01-01&to=2024-04-02',
      'metric=sent&interval=hour&from=2024-01-01&to=2024-03-25',
      'metric=sent&from=2024-13-01',
    ]) {
      const res = await series(query);
      expect([query, res.status]).toEqual([query, 400]);
      expect(res.body.error.code).toBe('BAD_REQUEST');
    }
    expect((await series('metric=sent&interval=hour&from=2024-01-01&to=2024-03-24T08:00:00Z')).body.points).toHaveLength(2000);
  });
});

describe('GET /analytics/top-campaigns, /campaign-stats, /top-events', () => {
  it('ranks the campaigns that started in the window by their counters', async () => {
    const res = await get('/analytics/top-campaigns?days=1');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      {
        id: ids.campB,
        name: 'Campaign B',
        status: 'SENDING',
        totalRecipients: 10,
        startedAt: ago(3 * HOUR).toISOString(),
        sent: 6,
        delivered: 0,
        opened: 3,
        clicked: 0,
        bounced: 0,
        complained: 0,
        failed: 1,
        openRate: 0.5,
        clickRate: 0,
        bounceRate: 0,
      },
      {
        id: ids.campA,
        name: 'Campaign A',
        status: 'SENT',
        totalRecipients: 4,
        startedAt: ago(2 * HOUR).toISOString(),
        sent: 4,
        delivered: 3,
        opened: 2,
        clicked: 1,
        bounced: 1,
        complained: 0,
        failed: 0,
        openRate: 0.5,
        clickRate: 0.25,
        bounceRate: 0.25,
      },
    ]);
    const names = async (query: string) => (await get(`/analytics/top-campaigns?${query}`)).body.data.map((c: { name: string }) => c.name);
    expect(await names('days=1&sort=clicked')).toEqual(['Campaign A', 'Campaign B']);
    expect(await names('days=1&sort=clickRate&limit=1')).toEqual(['Campaign A']);
    expect(await names('days=7&sort=openRate')).toEqual(['Old', 'Campaign A', 'Campaign B']);
    expect((await get('/analytics/top-campaigns?sort=bogus')).status).toBe(400);
  });

  it('totals the campaigns that started in the window and counts all campaigns by status', async () => {
    const res = await get('/analytics/campaign-stats?days=1');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      campaigns: 2,
      totalRecipients: 14,
      sent: 10,
      delivered: 3,
      opened: 5,
      clicked: 1,
      bounced: 1,
      failed: 1,
      openRate: 0.5,
      clickRate: 0.1,
      bounceRate: 0.1,
      byStatus: { SENT: 2, SENDING: 1, SCHEDULED: 1 },
    });
    expect((await get('/analytics/campaign-stats?days=7')).body.sent).toBe(110);
    expect((await get('/analytics/campaign-stats?days=0')).status).toBe(400);
  });

  it('ranks tracked events, leaving the email lifecycle and subscription changes out', async () => {
    const res = await get('/analytics/top-events?days=1');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([{ name: 'signup', count: 1, uniqueContacts: 1 }]);
    expect((await get('/analytics/top-events?limit=abc')).status).toBe(400);
  });
});

describe('isolation', () => {
  it("never shows another project's rows through any activity or analytics route", async () => {
    const paths = [
      '/activity?limit=100',
      '/activity?type=event&limit=100',
      '/activity/stats',
      '/activity/recent-count',
      '/activity/upcoming',
      '/analytics/timeseries?metric=opened',
      '/analytics/top-campaigns',
      '/analytics/campaign-stats',
      '/analytics/top-events',
    ];
    const bodies: Record<string, string> = {};
    for (const path of paths) {
      const res = await get(path);
      expect([path, res.status]).toEqual([path, 200]);
      bodies[path] = JSON.stringify(res.body);
      expect(bodies[path]).not.toContain(Q_MARK);
      expect(bodies[path]).not.toContain(ids.qContact);
    }
    // Counts that would include q's rows if the scope leaked.
    expect(JSON.parse(bodies['/activity/recent-count']).count).toBe(2);
    expect(JSON.parse(bodies['/analytics/timeseries?metric=opened']).total).toBe(1);
    expect(JSON.parse(bodies['/analytics/campaign-stats']).byStatus).toEqual({ SENT: 2, SENDING: 1, SCHEDULED: 1 });
    expect(JSON.parse(bodies['/analytics/campaign-stats']).sent).toBe(110);
    // And q sees its own.
    expect((await get('/activity/recent-count', q.secretKey)).body.count).toBeGreaterThanOrEqual(3);
  });
});
