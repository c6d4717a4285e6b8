import crypto from 'node:crypto';
import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';
import { uniqueEmail } from '../helpers/fixtures';
import { filterOn, seedCampaign, seedContacts, seedSegment, seedWorkflow } from '../helpers/feedFixtures';
import { countMatching } from '../../db/filters';
import { removeDataField } from '../../db/contactQueries';

let h: Harness;
let p: ProjectFixture;
let q: ProjectFixture;

beforeAll(async () => {
  h = await startHarness();
  [p, q] = await Promise.all([createProjectFixture(h, 'fields p'), createProjectFixture(h, 'fields q')]);
});
afterAll(() => h?.stop());

const get = (path: string, key = p.secretKey) => h.http.get(path).set(bearer(key));
const lookup = (emails: unknown, key = p.secretKey) => h.http.post('/contacts/lookup').set(bearer(key)).send({ emails });
const del = (field: string, key = p.secretKey) => h.http.delete(`/contacts/fields/${encodeURIComponent(field)}`).set(bearer(key));
const create = async (key: string, body: object) => {
  const res = await h.http.post('/contacts').set(bearer(key)).send(body);
  expect(res.status).toBe(201);
  return res.body;
};

describe('POST /contacts/lookup', () => {
  it('splits normalised addresses into found contacts and missing ones, in request order, never seeing another project', async () => {
    const a = await create(p.secretKey, { email: uniqueEmail('look'), subscribed: false });
    const b = await create(p.secretKey, { email: uniqueEmail('look') });
    const foreign = await create(q.secretKey, { email: uniqueEmail('look') });
    const missing = uniqueEmail('nobody');
    const res = await lookup([`  ${b.email.toUpperCase()} `, missing, a.email, b.email, foreign.email]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      found: [
        { id: b.id, email: b.email, subscribed: true },
        { id: a.id, email: a.email, subscribed: false },
      ],
      missing: [missing, foreign.email],
    });
    expect((await lookup([foreign.email], q.secretKey)).body.found).toEqual([{ id: foreign.id, email: foreign.email, subscribed: true }]);
    expect((await lookup([])).body).toEqual({ found: [], missing: [] });
  });

  it('takes 500 addresses and refuses 501 or a malformed one with 422', async () => {
    const many = Array.from({ length: 500 }, (_, i) => `bulk-${i}@example.org`);
    const ok = await lookup(many);
    expect(ok.status).toBe(200);
    expect(ok.body.missing).toHaveLength(500);
    const tooMany = await lookup([...many, 'one-more@example.org']);
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.error).toMatchObject({ code: 'VALIDATION_ERROR', errors: [expect.objectContaining({ field: 'emails', code: 'too_big' })] });
    const bad = await lookup(['fine@example.org', 'not an email']);
    expect(bad.status).toBe(422);
    expect(bad.body.error.errors[0].field).toBe('emails.1');
    expect((await lookup('x@example.org')).status).toBe(422);
  });
});

describe('GET /contacts/fields/:field/values', () => {
  let own: ProjectFixture;
  beforeAll(async () => {
    own = await createProjectFixture(h, 'values');
    await seedContacts(
      h.deps.knex,
      own.projectId,
      [
        ...['pro', 'pro', 'pro', 'free', 'free', 'team'].map((plan, i) => ({
          email: `v${i}@example.org`,
          data: { plan, profile: { tier: i % 2 ? 'gold' : 'silver' } },
        })),
        { email: 'none@example.org', subscribed: false, data: { seats: 3 } },
      ],
      { plan: 'string', 'profile.tier': 'string', seats: 'number' },
    );
    // Another project with the same key and other values: none may leak into `own`'s answers.
    await seedContacts(h.deps.knex, q.projectId, [{ email: uniqueEmail(), data: { plan: 'q-secret-plan' } }], { plan: 'string' });
  });

  it('answers the most frequent values first with their counts, for data paths and core fields', async () => {
    const plan = await get('/contacts/fields/data.plan/values', own.secretKey);
    expect(plan.status).toBe(200);
    expect(plan.body).toEqual({
      field: 'data.plan',
      values: [
        { value: 'pro', count: 3 },
        { value: 'free', count: 2 },
        { value: 'team', count: 1 },
      ],
    });
    const tier = await get('/contacts/fields/data.profile.tier/values', own.secretKey);
    expect(tier.body.values).toEqual([
      { value: 'gold', count: 3 },
      { value: 'silver', count: 3 },
    ]);
    const seats = await get('/contacts/fields/data.seats/values', own.secretKey);
    expect(seats.body.values).toEqual([{ value: 3, count: 1 }]);
    const subscribed = await get('/contacts/fields/subscribed/values', own.secretKey);
    expect(subscribed.body.values).toEqual([
      { value: true, count: 6 },
      { value: false, count: 1 },
    ]);
    const emails = await get('/contacts/fields/email/values?limit=2', own.secretKey);
    expect(emails.body.values).toHaveLength(2);
  });

  it('404s a custom field the project never had (even when another project has it) and 400s timestamps', async () => {
    expect((await get('/contacts/fields/data.nothing/values', own.secretKey)).status).toBe(404);
    const qOnly = crypto.randomBytes(4).toString('hex');
    await seedContacts(h.deps.knex, q.projectId, [{ email: uniqueEmail(), data: { [qOnly]: 1 } }], { [qOnly]: 'number' });
    const res = await get(`/contacts/fields/data.${qOnly}/values`, own.secretKey);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    expect((await get('/contacts/fields/createdAt/values', own.secretKey)).status).toBe(400);
    expect((await get('/contacts/fields/plan/values', own.secretKey)).status).toBe(404);
    expect((await get('/contacts/fields/data..x/values', own.secretKey)).status).toBe(404);
    expect((await get('/contacts/fields/data.plan/values?limit=abc', own.secretKey)).status).toBe(400);
  });
});

describe('GET /contacts/fields/:field/usage', () => {
  it('lists the segments, campaign audiences and workflows whose filters reference the field, of this project only', async () => {
    const own = await createProjectFixture(h, 'usage');
    const tree = filterOn('data.plan', 'equals', 'pro');
    const nested = { logic: 'OR', groups: [{ filters: [filterOn('email', 'contains', 'x').groups[0].filters[0]], conditions: filterOn('data.profile.tier') }] };
    const seg = await seedSegment(h.deps.knex, own.projectId, 'Pro plan', tree);
    const segNested = await seedSegment(h.deps.knex, own.projectId, 'Gold tier', nested);
    await seedSegment(h.deps.knex, own.projectId, 'Unrelated', filterOn('data.planet'));
    const camp = await seedCampaign(h.deps.knex, own.projectId, { name: 'Pro upsell', audienceCondition: tree });
    await seedCampaign(h.deps.knex, own.projectId, { name: 'Everyone' });
    const wfCondition = await seedWorkflow(h.deps.knex, own.projectId, {
      name: 'Branch on plan',
      eventName: 'signup',
      steps: [{ type: 'CONDITION', config: { condition: tree } }],
    });
    const wfWrites = await seedWorkflow(h.deps.knex, own.projectId, {
      name: 'Set plan',
      eventName: 'paid',
      steps: [{ type: 'UPDATE_CONTACT', config: { data: { plan: 'pro' } } }],
    });
    await seedWorkflow(h.deps.knex, own.projectId, {
      name: 'Unrelated flow',
      eventName: 'plan',
      steps: [{ type: 'WAIT_FOR_EVENT', config: { eventName: 'data.plan' } }],
    });
    // The same references in another project.
    await seedSegment(h.deps.knex, q.projectId, 'Q segment', tree);
    await seedCampaign(h.deps.knex, q.projectId, { name: 'Q campaign', audienceCondition: tree });
    await seedWorkflow(h.deps.knex, q.projectId, { name: 'Q flow', eventName: 'signup', steps: [{ type: 'CONDITION', config: { condition: tree } }] });

    const res = await get('/contacts/fields/data.plan/usage', own.secretKey);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      field: 'data.plan',
      segments: [{ id: seg, name: 'Pro plan' }],
      campaigns: [{ id: camp, name: 'Pro upsell' }],
      workflows: [
        { id: wfCondition, name: 'Branch on plan' },
        { id: wfWrites, name: 'Set plan' },
      ],
    });
    // A filter nested in a group's `conditions`, and one on a path beneath the field.
    expect((await get('/contacts/fields/data.profile.tier/usage', own.secretKey)).body.segments).toEqual([{ id: segNested, name: 'Gold tier' }]);
    expect((await get('/contacts/fields/data.profile/usage', own.secretKey)).body.segments).toEqual([{ id: segNested, name: 'Gold tier' }]);
    expect((await get('/contacts/fields/email/usage', own.secretKey)).body.segments).toEqual([{ id: segNested, name: 'Gold tier' }]);
    expect((await get('/contacts/fields/data.unused/usage', own.secretKey)).body).toEqual({ field: 'data.unused', segments: [], campaigns: [], workflows: [] });
    expect((await get('/contacts/fields/bogus/usage', own.secretKey)).status).toBe(404);
  });
});

describe('DELETE /contacts/fields/:field', () => {
  it('removes the key from every contact in batches, drops it from the registry, and filters on it stop matching', async () => {
    const own = await createProjectFixture(h, 'delete field');
    const n = 1203;
    await seedContacts(
      h.deps.knex,
      own.projectId,
      Array.from({ length: n }, (_, i) => ({ email: `del-${i}@example.org`, data: i % 401 === 0 ? { keep: i } : { doomed: 'x', keep: i } })),
      { doomed: 'string', keep: 'number' },
    );
    const foreign = await seedContacts(h.deps.knex, q.projectId, [{ email: uniqueEmail(), data: { doomed: 'x' } }], { doomed: 'string' });
    const segment = filterOn('data.doomed', 'equals', 'x');
    const withKey = n - Math.ceil(n / 401);
    expect(await countMatching(h.deps.knex, own.projectId, segment)).toBe(withKey);

    const res = await del('data.doomed', own.secretKey);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ field: 'data.doomed', contactsUpdated: withKey });

    const left = await h.deps.knex('contacts').where('project_id', own.projectId).whereRaw(`data \\? 'doomed'`).count<{ count: number }[]>('* as count');
    expect(Number(left[0].count)).toBe(0);
    const kept = await h.deps.knex('contacts').where('project_id', own.projectId).whereRaw(`data \\? 'keep'`).count<{ count: number }[]>('* as count');
    expect(Number(kept[0].count)).toBe(n);
    expect(await countMatching(h.deps.knex, own.projectId, segment)).toBe(0);
    const fields = await get('/contacts/fields', own.secretKey);
    expect(fields.body.fields.map((f: { field: string }) => f.field)).not.toContain('data.doomed');
    expect((await get('/contacts/fields/data.doomed/values', own.secretKey)).status).toBe(404);
    expect((await del('data.doomed', own.secretKey)).status).toBe(404);

    // The other project keeps its contact's key and its registry entry.
    expect((await h.deps.knex('contacts').where({ id: foreign[0].id }).first()).data).toEqual({ doomed: 'x' });
    expect((await get('/contacts/fields/data.doomed/values', q.secretKey)).body.values).toEqual([{ value: 'x', count: 1 }]);
  });

  it('removes a nested field, or an object with every field beneath it', async () => {
    const own = await createProjectFixture(h, 'delete nested');
    const [c] = await seedContacts(h.deps.knex, own.projectId, [{ email: uniqueEmail(), data: { profile: { tier: 'gold', city: 'Oslo' }, plan: 'pro' } }], {
      'profile.tier': 'string',
      'profile.city': 'string',
      plan: 'string',
    });
    expect((await del('data.profile.tier', own.secretKey)).body).toEqual({ field: 'data.profile.tier', contactsUpdated: 1 });
    expect((await h.deps.knex('contacts').where({ id: c.id }).first()).data).toEqual({ profile: { city: 'Oslo' }, plan: 'pro' });
    expect((await del('data.profile', own.secretKey)).body).toEqual({ field: 'data.profile', contactsUpdated: 1 });
    expect((await h.deps.knex('contacts').where({ id: c.id }).first()).data).toEqual({ plan: 'pro' });
    expect(await h.deps.knex('contact_fields').where({ project_id: own.projectId }).pluck('key')).toEqual(['plan']);
  });

  it('walks every batch when the contacts fill them exactly', async () => {
    const own = await createProjectFixture(h, 'delete exact batches');
    await seedContacts(
      h.deps.knex,
      own.projectId,
      Array.from({ length: 10 }, (_, i) => ({ email: `exact-${i}@example.org`, data: { gone: i } })),
      { gone: 'number' },
    );
    expect(await removeDataField(h.deps.knex, own.projectId, 'gone', 5)).toBe(10);
    expect(await removeDataField(h.deps.knex, own.projectId, 'gone', 5)).toBe(0);
  });

  it('refuses standard fields with 400, and unknown or malformed ones with 404, changing nothing', async () => {
    for (const field of ['email', 'subscribed', 'createdAt', 'updatedAt']) {
      const res = await del(field);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('BAD_REQUEST');
    }
    expect((await del('data.never-seen')).status).toBe(404);
    expect((await del('name')).status).toBe(404);
    // q's registered field is not p's to delete.
    expect((await del('data.plan')).status).toBe(404);
    expect((await get('/contacts/fields/data.plan/values', q.secretKey)).status).toBe(200);
  });
});
