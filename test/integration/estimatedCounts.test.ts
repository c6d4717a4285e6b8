import crypto from 'node:crypto';
import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';
import { listContacts } from '../../db/contactReaders';
import { countMatchingOrEstimate, plannedRows } from '../../db/contactCounts';
import { countMatching, loadFieldTypes } from '../../db/filters';
import { recordEvents } from '../../db/events';
import { countEventsByName } from '../../db/eventQueries';
import { verifiedDomain } from '../helpers/fixtures';
import { audienceCountOrEstimate } from '../../db/campaignAudience';
import { createKnex, dropDatabase, ensureDatabase, migrateLatest } from '../../db/knex';

/**
 * Estimated counts (db/contactCounts.ts, docs/capacity.md "Estimated counts"): at or above
 * COUNT_ESTIMATE_THRESHOLD the contact list's total and the live count are estimated and say so;
 * below it they are exact and the field is absent. The harness sets the threshold to 1 (the
 * planner never estimates fewer than one row), so the estimate path runs on a small project.
 */
let h: Harness;
let p: ProjectFixture;
let url: string;
const CONTACTS = 1200;

beforeAll(async () => {
  // A database of its own: the routes' sample (100,000 rows of the table) must be the whole table for
  // the shares below to be exact, and the run's shared table outgrows that as other files write to it.
  const u = new URL(process.env.DATABASE_URL!);
  u.pathname = `/${u.pathname.slice(1)}_est_${crypto.randomBytes(3).toString('hex')}`;
  url = u.toString();
  await ensureDatabase(url);
  const migrator = createKnex(url);
  await migrateLatest(migrator).finally(() => migrator.destroy());
  h = await startHarness({ env: { COUNT_ESTIMATE_THRESHOLD: '1', DATABASE_URL: url } });
  p = await createProjectFixture(h);
  // Enough contacts that the sample holds the 1,000 rows it needs; a third of them are "pro".
  await h.deps.knex.raw(
    `INSERT INTO contacts (id, project_id, email, subscribed, data)
     SELECT 'cnt_est' || lpad(g::text, 9, '0') || ?, ?, 'est-' || g || '-' || ? || '@example.org', true,
            jsonb_build_object('plan', CASE WHEN g % 3 = 0 THEN 'pro' ELSE 'free' END)
       FROM generate_series(1, ?) g`,
    [crypto.randomBytes(3).toString('hex'), p.projectId, crypto.randomBytes(3).toString('hex'), CONTACTS],
  );
  await h.deps.knex.raw('ANALYZE contacts');
});
afterAll(async () => {
  await h?.stop();
  if (url) await dropDatabase(url);
});

const api = () => ({
  get: (path: string) => h.http.get(path).set(bearer(p.secretKey)),
  post: (path: string, body: object) => h.http.post(path).set(bearer(p.secretKey)).send(body),
});
const pro = { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] };

describe('estimated counts', () => {
  it('estimates the unfiltered list total above the threshold and says so; a search stays exact', async () => {
    const planned = await plannedRows(h.deps.knex, h.deps.knex('contacts').where({ project_id: p.projectId }).select(h.deps.knex.raw('1')));
    const list = await api().get('/contacts?limit=5');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total: planned, estimated: true });
    const searched = await api().post('/contacts/search', { search: 'est-7-', limit: 5 });
    expect(searched.status).toBe(200);
    expect(searched.body.total).toBe(1);
    expect(searched.body).not.toHaveProperty('estimated');
    // A later page answers 0 as the spec says, never an estimate.
    const next = await api().get(`/contacts?limit=5&cursor=${list.body.cursor}`);
    expect(next.body).toMatchObject({ total: 0 });
    expect(next.body).not.toHaveProperty('estimated');
  });

  it('is exact below the threshold', async () => {
    for (const estimateAbove of [0, 1_000_000_000]) {
      const page = await listContacts(h.deps.knex, { projectId: p.projectId, limit: 5, sort: 'createdAt', dir: 'desc', estimateAbove });
      expect(page).toMatchObject({ total: CONTACTS, estimated: false });
    }
    const types = await loadFieldTypes(h.deps.knex, p.projectId);
    expect(await countMatchingOrEstimate(h.deps.knex, p.projectId, pro, types, { threshold: 1_000_000_000 })).toEqual({
      count: CONTACTS / 3,
      estimated: false,
    });
  });

  it('estimates the live count from a sample above the threshold, and counts exactly what the sample puts below it', async () => {
    const knex = h.deps.knex;
    const planned = await plannedRows(knex, knex('contacts').where({ project_id: p.projectId }).select(knex.raw('1')));
    const res = await api().post('/contacts/count', { condition: pro });
    expect(res.status).toBe(200);
    // The test database is far below the sample size: the sample is the whole table, so the share is exact.
    expect(res.body).toEqual({ count: Math.round((planned * (CONTACTS / 3)) / CONTACTS), estimated: true });
    const none = await api().post('/contacts/count', {
      condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'nobody' }] }] },
    });
    expect(none.body).toEqual({ count: 0 });
    expect(await countMatching(knex, p.projectId, pro)).toBe(CONTACTS / 3);
  });
});

describe('estimates only when the sample pins them down', () => {
  const BIG = 12_000;
  let big: ProjectFixture;
  const tree = (key: string, value: string) => ({ logic: 'AND', groups: [{ filters: [{ field: `data.${key}`, operator: 'equals', value }] }] });
  beforeAll(async () => {
    big = await createProjectFixture(h, 'sampled');
    // Written in g order, so a page holds consecutive contacts: "pro" is spread evenly over every page
    // (a third of each), "early" fills the first tenth of the pages and nothing else, "rare" is 24 contacts.
    await h.deps.knex.raw(
      `INSERT INTO contacts (id, project_id, email, subscribed, data)
       SELECT 'cnt_smp' || lpad(g::text, 9, '0') || ?, ?, 'smp-' || g || '-' || ? || '@example.org', true,
              jsonb_build_object('plan', CASE WHEN g % 3 = 0 THEN 'pro' ELSE 'free' END,
                                 'batch', CASE WHEN g <= ? THEN 'early' ELSE 'late' END,
                                 'tier', CASE WHEN g % 500 = 0 THEN 'rare' ELSE 'common' END)
         FROM generate_series(1, ?) g`,
      [crypto.randomBytes(3).toString('hex'), big.projectId, crypto.randomBytes(3).toString('hex'), BIG / 10, BIG],
    );
    await h.deps.knex.raw('ANALYZE contacts');
    // A sample of about a third of the table's pages, whatever else the table holds (the other
    // describes' contacts): a fixed row count would sample too few or all of ours.
    const { rows } = await h.deps.knex.raw("SELECT reltuples::float8 AS n FROM pg_class WHERE oid = 'contacts'::regclass");
    opts.sampleRows = Math.ceil(Number(rows[0].n) / 3);
  });

  const opts = { threshold: 1, sampleRows: 4000 };

  it('answers an evenly spread match from the sample, flagged, and close to the exact count', async () => {
    const types = await loadFieldTypes(h.deps.knex, big.projectId);
    const counted = await countMatchingOrEstimate(h.deps.knex, big.projectId, tree('plan', 'pro'), types, opts);
    expect(counted.estimated).toBe(true);
    expect(Math.abs(counted.count - BIG / 3)).toBeLessThan(0.1 * (BIG / 3));
  });

  it('counts exactly a match bunched in a few pages, although the sample holds hundreds of its rows', async () => {
    const types = await loadFieldTypes(h.deps.knex, big.projectId);
    expect(await countMatchingOrEstimate(h.deps.knex, big.projectId, tree('batch', 'early'), types, opts)).toEqual({ count: BIG / 10, estimated: false });
  });

  it('counts exactly a match too rare for the sample', async () => {
    const types = await loadFieldTypes(h.deps.knex, big.projectId);
    expect(await countMatchingOrEstimate(h.deps.knex, big.projectId, tree('tier', 'rare'), types, opts)).toEqual({ count: BIG / 500, estimated: false });
  });

  it('keeps a project under the threshold exact, however solid its sample', async () => {
    const types = await loadFieldTypes(h.deps.knex, big.projectId);
    expect(await countMatchingOrEstimate(h.deps.knex, big.projectId, tree('plan', 'pro'), types, { ...opts, threshold: BIG * 10 })).toEqual({
      count: BIG / 3,
      estimated: false,
    });
  });
});

describe('segment members total', () => {
  it("estimates a DYNAMIC segment's total as the count does, flagged; a STATIC segment's stays exact", async () => {
    const knex = h.deps.knex;
    const dynamic = await api().post('/segments', { name: `pro ${crypto.randomBytes(3).toString('hex')}`, type: 'DYNAMIC', condition: pro });
    expect(dynamic.status).toBe(201);
    const page = await api().get(`/segments/${dynamic.body.id}/contacts?pageSize=5`);
    expect(page.status).toBe(200);
    const counted = await api().post('/contacts/count', { condition: pro });
    expect(counted.body.estimated).toBe(true);
    expect(page.body).toMatchObject({ total: counted.body.count, estimated: true });
    expect(page.body.data).toHaveLength(5);
    const staticSeg = await api().post('/segments', { name: `static ${crypto.randomBytes(3).toString('hex')}`, type: 'STATIC' });
    expect(staticSeg.status).toBe(201);
    const someone = await knex('contacts').where({ project_id: p.projectId }).first('email');
    expect((await api().post(`/segments/${staticSeg.body.id}/members`, { emails: [someone.email] })).body.added).toBe(1);
    const members = await api().get(`/segments/${staticSeg.body.id}/contacts`);
    expect(members.body.total).toBe(1);
    expect(members.body).not.toHaveProperty('estimated');
  });
});

describe('top events over a window ending now', () => {
  it('reads the current hour from its hourly row and still equals the log', async () => {
    const knex = h.deps.knex;
    const fx = await createProjectFixture(h, 'top events');
    const contact = (
      await knex('contacts')
        .insert({ id: `cnt_top${crypto.randomBytes(6).toString('hex')}`, project_id: fx.projectId, email: 'top@example.org' })
        .returning('id')
    )[0].id;
    await recordEvents(
      knex,
      [1, 2, 3].map(() => ({ projectId: fx.projectId, contactId: contact, name: 'burst' })),
    );
    const to = new Date();
    const from = new Date(to.getTime() - 2 * 86_400_000);
    const log = [{ name: 'burst', count: 3, uniqueContacts: 1 }];
    expect(await countEventsByName(knex, { projectId: fx.projectId, from, to, limit: 10, untilNow: true })).toEqual(log);
    expect(await countEventsByName(knex, { projectId: fx.projectId, from, to, limit: 10 })).toEqual(log);
    // Proof of the path: a count in the current hour's row that the log does not have shows up only with untilNow.
    await knex('event_hourly_counts').insert({
      project_id: fx.projectId,
      name: 'burst',
      hour: new Date(Math.floor(to.getTime() / 3_600_000) * 3_600_000),
      slot: 9,
      count: 2,
    });
    expect((await countEventsByName(knex, { projectId: fx.projectId, from, to, limit: 10, untilNow: true }))[0].count).toBe(5);
    expect((await countEventsByName(knex, { projectId: fx.projectId, from, to, limit: 10 }))[0].count).toBe(3);
    const route = await h.http.get('/analytics/top-events?days=2').set(bearer(fx.secretKey));
    expect(route.body.data).toEqual([{ name: 'burst', count: 5, uniqueContacts: 1 }]);
  });
});

describe('a campaign audience count', () => {
  it('estimates an audience of all contacts or a filter with the consent rule in the sample, flagged; a segment audience stays exact', async () => {
    const knex = h.deps.knex;
    const fx = await createProjectFixture(h, 'audience');
    await verifiedDomain(h, fx.projectId, 'audience.example.com');
    // A third "pro", half subscribed: a MARKETING audience of "pro" is a sixth of the list, a TRANSACTIONAL one a third.
    await knex.raw(
      `INSERT INTO contacts (id, project_id, email, subscribed, data)
       SELECT 'cnt_aud' || lpad(g::text, 9, '0') || ?, ?, 'aud-' || g || '-' || ? || '@example.org', g % 2 = 0,
              jsonb_build_object('plan', CASE WHEN g % 3 = 0 THEN 'pro' ELSE 'free' END)
         FROM generate_series(1, ?) g`,
      [crypto.randomBytes(3).toString('hex'), fx.projectId, crypto.randomBytes(3).toString('hex'), CONTACTS],
    );
    await knex.raw('ANALYZE contacts');
    const planned = await plannedRows(knex, knex('contacts').where({ project_id: fx.projectId }).select(knex.raw('1')));
    const audience = async (body: object) => {
      const created = await h.http
        .post('/campaigns')
        .set(bearer(fx.secretKey))
        .send({ name: 'Sized', subject: 'Hi', body: '<p>x</p>', from: 'news@audience.example.com', ...body });
      expect(created.status).toBe(201);
      const res = await h.http.get(`/campaigns/${created.body.data.id}/audience`).set(bearer(fx.secretKey));
      expect(res.status).toBe(200);
      // The route's default sample: close to the exact count; the share is checked exactly below, on
      // a sample of the whole table.
      const exact = await audienceCountOrEstimate(knex, await knex('campaigns').where({ id: created.body.data.id }).first(), { threshold: 0 });
      expect(Math.abs(res.body.count - exact.count)).toBeLessThanOrEqual(0.1 * exact.count);
      const row = await knex('campaigns').where({ id: created.body.data.id }).first();
      const { rows } = await knex.raw("SELECT reltuples::float8 AS n FROM pg_class WHERE oid = 'contacts'::regclass");
      return audienceCountOrEstimate(knex, row, { threshold: 1, sampleRows: 2 * Number(rows[0].n) + 1000 });
    };
    // A sample of the whole table: each share is exact and the estimate is it times the planned size.
    const about = (share: number) => ({ count: Math.round(planned * share), estimated: true });
    expect(await audience({ audienceType: 'FILTERED', audienceCondition: pro })).toEqual(about(1 / 6));
    expect(await audience({ audienceType: 'FILTERED', audienceCondition: pro, type: 'TRANSACTIONAL' })).toEqual(about(1 / 3));
    expect(await audience({ audienceType: 'ALL' })).toEqual(about(1 / 2));
    const segment = await h.http.post('/segments').set(bearer(fx.secretKey)).send({ name: 'Pro', type: 'DYNAMIC', condition: pro });
    expect(segment.status).toBe(201);
    expect(await audience({ audienceType: 'SEGMENT', segmentId: segment.body.data?.id ?? segment.body.id })).toEqual({ count: CONTACTS / 6, estimated: false });
  });
});
