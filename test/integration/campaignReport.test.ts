import crypto from 'node:crypto';
import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';
import { verifiedDomain } from '../helpers/fixtures';
import { buildOpenApi } from '../../api/openapi';
import { allRoutes } from '../../api/routes';

/**
 * The routes the dashboard's campaign composer and report read besides the campaign itself:
 * GET /campaigns/:id/audience (the count a send's confirmation names: the audience as sending would
 * snapshot it) and GET /campaigns/:id/timeseries (sent, first opened and first clicked per bucket).
 */

let h: Harness;
const DOMAIN = 'report.example.com';

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.stop());

async function project(): Promise<ProjectFixture> {
  const fx = await createProjectFixture(h);
  await verifiedDomain(h, fx.projectId, DOMAIN);
  return fx;
}

async function contact(fx: ProjectFixture, data: Record<string, unknown>, subscribed = true) {
  const email = `c-${crypto.randomBytes(4).toString('hex')}@example.org`;
  const res = await h.http.post('/contacts').set(bearer(fx.secretKey)).send({ email, data, subscribed });
  expect(res.status).toBe(201);
  return res.body.data?.id ?? res.body.id;
}

async function campaign(fx: ProjectFixture, audience: object, extra: object = {}) {
  const res = await h.http
    .post('/campaigns')
    .set(bearer(fx.secretKey))
    .send({ name: 'Report', subject: 'Hi', body: '<p>x</p>', from: `news@${DOMAIN}`, ...audience, ...extra });
  expect(res.status).toBe(201);
  return res.body.data.id as string;
}

const PRO = { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] };

describe('GET /campaigns/:id/audience', () => {
  it('counts the audience as sending would: the filter, and only subscribed contacts for MARKETING', async () => {
    const fx = await project();
    await contact(fx, { plan: 'pro' });
    await contact(fx, { plan: 'pro' });
    await contact(fx, { plan: 'pro' }, false);
    await contact(fx, { plan: 'free' });
    const count = async (id: string) => {
      const res = await h.http.get(`/campaigns/${id}/audience`).set(bearer(fx.secretKey));
      expect(res.status).toBe(200);
      return res.body.count;
    };
    expect(await count(await campaign(fx, { audienceType: 'FILTERED', audienceCondition: PRO }))).toBe(2);
    // TRANSACTIONAL mail ignores subscription.
    expect(await count(await campaign(fx, { audienceType: 'FILTERED', audienceCondition: PRO }, { type: 'TRANSACTIONAL' }))).toBe(3);
    expect(await count(await campaign(fx, { audienceType: 'ALL' }))).toBe(3);
    const seg = await h.http
      .post('/segments')
      .set(bearer(fx.secretKey))
      .send({ name: 'Free', type: 'DYNAMIC', condition: { ...PRO, groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'free' }] }] } });
    expect(seg.status).toBe(201);
    const segmentId = seg.body.data?.id ?? seg.body.id;
    expect(await count(await campaign(fx, { audienceType: 'SEGMENT', segmentId }))).toBe(1);
  });

  it("is another project's campaign's 404, and a tree that no longer compiles is a 422 naming the node", async () => {
    const fx = await project();
    const other = await project();
    const id = await campaign(fx, { audienceType: 'FILTERED', audienceCondition: PRO });
    expect((await h.http.get(`/campaigns/${id}/audience`).set(bearer(other.secretKey))).status).toBe(404);
    // A stored tree the compiler refuses now (written before a check it fails existed).
    await h.deps
      .knex('campaigns')
      .where({ id })
      .update({
        audience_condition: JSON.stringify({ logic: 'AND', groups: [{ filters: [{ field: 'createdAt', operator: 'greaterThan', value: 'soon' }] }] }),
      });
    const res = await h.http.get(`/campaigns/${id}/audience`).set(bearer(fx.secretKey));
    expect(res.status).toBe(422);
    expect(res.body.error.errors[0].field).toMatch(/^audienceCondition\.groups\.0\.filters\.0/);
  });
});

describe('GET /campaigns/:id/timeseries', () => {
  it('counts sent, first opened and first clicked emails per hour from the campaign start, empty hours included', async () => {
    const fx = await project();
    const ids = [await contact(fx, {}), await contact(fx, {}), await contact(fx, {})];
    const id = await campaign(fx, { audienceType: 'ALL' });
    const start = new Date(Date.UTC(2026, 0, 10, 9, 0, 0));
    await h.deps.knex('campaigns').where({ id }).update({ started_at: start, status: 'SENT' });
    const at = (hours: number, minutes = 0) => new Date(start.getTime() + hours * 3_600_000 + minutes * 60_000);
    const base = { project_id: fx.projectId, campaign_id: id, type: 'MARKETING', from_email: `news@${DOMAIN}`, subject: 's', body: 'b', status: 'SENT' };
    await h.deps.knex('emails').insert([
      { ...base, id: crypto.randomUUID(), contact_id: ids[0], to_email: 'a@example.org', sent_at: at(0, 5), opened_at: at(0, 30), clicked_at: at(2, 1) },
      { ...base, id: crypto.randomUUID(), contact_id: ids[1], to_email: 'b@example.org', sent_at: at(0, 6), opened_at: at(2, 10) },
      { ...base, id: crypto.randomUUID(), contact_id: ids[2], to_email: 'c@example.org', sent_at: at(1, 0) },
      // A test send (no campaign id) and another campaign's email are not counted.
      { ...base, campaign_id: null, id: crypto.randomUUID(), contact_id: ids[2], to_email: 'c@example.org', sent_at: at(0, 1), opened_at: at(0, 2) },
    ]);
    const res = await h.http
      .get(`/campaigns/${id}/timeseries`)
      .query({ to: at(3).toISOString() })
      .set(bearer(fx.secretKey));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ interval: 'hour', from: start.toISOString(), to: at(3).toISOString(), totals: { sent: 3, opened: 2, clicked: 1 } });
    expect(res.body.points).toEqual([
      { t: at(0).toISOString(), sent: 2, opened: 1, clicked: 0 },
      { t: at(1).toISOString(), sent: 1, opened: 0, clicked: 0 },
      { t: at(2).toISOString(), sent: 0, opened: 1, clicked: 1 },
    ]);

    const daily = await h.http.get(`/campaigns/${id}/timeseries`).query({ interval: 'day', from: '2026-01-09', to: '2026-01-12' }).set(bearer(fx.secretKey));
    expect(daily.status).toBe(200);
    expect(daily.body.points.map((p: { sent: number }) => p.sent)).toEqual([0, 3, 0]);

    // A window older than a month defaults to days.
    await h.deps
      .knex('campaigns')
      .where({ id })
      .update({ started_at: new Date(Date.now() - 40 * 86_400_000) });
    expect((await h.http.get(`/campaigns/${id}/timeseries`).set(bearer(fx.secretKey))).body.interval).toBe('day');
  });

  it('refuses a window the analytics limits refuse (400 naming from, as the analytics route does), and another project (404)', async () => {
    const fx = await project();
    const other = await project();
    const id = await campaign(fx, { audienceType: 'ALL' });
    const tooMany = await h.http.get(`/campaigns/${id}/timeseries`).query({ interval: 'hour', from: '2026-01-01', to: '2026-03-28' }).set(bearer(fx.secretKey));
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.errors[0]).toMatchObject({ field: 'from', message: expect.stringContaining('2000 buckets') });
    const backwards = await h.http.get(`/campaigns/${id}/timeseries`).query({ from: '2026-02-01', to: '2026-01-01' }).set(bearer(fx.secretKey));
    expect(backwards.status).toBe(400);
    expect((await h.http.get(`/campaigns/${id}/timeseries`).query({ interval: 'week' }).set(bearer(fx.secretKey))).status).toBe(400);
    expect((await h.http.get(`/campaigns/${id}/timeseries`).set(bearer(other.secretKey))).status).toBe(404);
  });

  it('is in the OpenAPI document with the audience route and the filter operator table', () => {
    const doc = buildOpenApi(allRoutes, { title: 't', version: '1' });
    expect(doc.paths['/campaigns/{id}/timeseries'].get.responses[200].content['application/json'].schema.properties.points).toBeDefined();
    expect(doc.paths['/campaigns/{id}/audience'].get.responses[200].content['application/json'].schema.properties.count).toBeDefined();
    expect(doc.components.schemas.FilterOperatorsByKind.properties.event.items.enum[0]).toBe('triggered');
  });
});
