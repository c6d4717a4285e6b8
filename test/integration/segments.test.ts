import crypto from 'node:crypto';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { uniqueEmail } from '../helpers/fixtures';
import { upsertContact } from '../../db/contactWriters';
import { beginCompute, computeBatch, finishCompute } from '../../db/segmentCompute';
import { requestSend } from '../../db/campaignTransitions';

let h: Harness;
let p: ProjectFixture;
let other: ProjectFixture;

beforeAll(async () => {
  h = await startHarness({ worker: true });
  [p, other] = [await createProjectFixture(h), await createProjectFixture(h, 'other')];
});
afterAll(() => h?.stop());

const api = (fixture = p) => ({
  get: (path: string) => h.http.get(path).set(bearer(fixture.secretKey)),
  post: (path: string, body: object = {}) => h.http.post(path).set(bearer(fixture.secretKey)).send(body),
  patch: (path: string, body: object) => h.http.patch(path).set(bearer(fixture.secretKey)).send(body),
  del: (path: string, body?: object) => {
    const req = h.http.delete(path).set(bearer(fixture.secretKey));
    return body ? req.send(body) : req;
  },
});

/** A tag unique to one test, so each test's contacts are its own inside the shared project. */
const tagged = (tag: string, filters: object[] = []) => ({
  logic: 'AND',
  groups: [{ filters: [{ field: 'data.tag', operator: 'equals', value: tag }, ...filters] }],
});
/** A campaign row of the project whose audience is the segment. */
async function campaignTargeting(segmentId: string, status: string): Promise<string> {
  const id = crypto.randomUUID();
  await h.deps.knex('campaigns').insert({
    id,
    project_id: p.projectId,
    name: 'c',
    subject: 's',
    body: 'b',
    from: 'a@example.com',
    audience_type: 'SEGMENT',
    segment_id: segmentId,
    status,
  });
  return id;
}

const newTag = () => `t${crypto.randomBytes(4).toString('hex')}`;

async function contact(data: Record<string, unknown>, email = uniqueEmail(), projectId = p.projectId) {
  return (await upsertContact(h.deps.knex, { projectId, email, data, defaultSubscribed: true })).contact;
}

const createSegment = async (body: object, fixture = p) => {
  const res = await api(fixture).post('/segments', body);
  expect(res.status).toBe(201);
  return res.body;
};

describe('segment CRUD', () => {
  it('creates, lists newest first, reads, patches (slug kept) and deletes', async () => {
    const tag = newTag();
    await contact({ tag });
    const created = await createSegment({ name: 'Pro Users (EU)!', description: 'paying', condition: tagged(tag) });
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Pro Users (EU)!',
      slug: 'pro-users-eu',
      description: 'paying',
      type: 'DYNAMIC',
      condition: tagged(tag),
      trackMembership: false,
      memberCount: 1,
      projectId: p.projectId,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const second = await createSegment({ name: 'Static list', type: 'STATIC' });
    expect(second).toMatchObject({ type: 'STATIC', condition: null, memberCount: 0, slug: 'static-list' });

    const list = await api().get('/segments');
    expect(list.status).toBe(200);
    expect(Array.isArray(list.body)).toBe(true);
    const ids = list.body.map((s: any) => s.id);
    expect(ids.indexOf(second.id)).toBeLessThan(ids.indexOf(created.id));

    expect((await api().get(`/segments/${created.id}`)).body).toEqual(created);

    const patched = await api().patch(`/segments/${created.id}`, { name: 'Renamed', description: null, trackMembership: true });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Renamed', slug: 'pro-users-eu', description: null, trackMembership: true });

    expect((await api().del(`/segments/${created.id}`)).status).toBe(204);
    expect((await api().get(`/segments/${created.id}`)).status).toBe(404);
  });

  it('gives a second segment of the same slug a numbered one, so their events stay apart', async () => {
    const a = await createSegment({ name: 'Dup Name', type: 'STATIC' });
    const b = await createSegment({ name: 'dup  name', type: 'STATIC' });
    expect([a.slug, b.slug]).toEqual(['dup-name', 'dup-name-2']);
    // Another project has its own slugs.
    expect((await createSegment({ name: 'Dup Name', type: 'STATIC' }, other)).slug).toBe('dup-name');
  });

  it('ignores a condition sent with a STATIC segment (the spec conflict, resolved as "ignored")', async () => {
    const res = await api().post('/segments', { name: 'Static with junk', type: 'STATIC', condition: 'not a tree' });
    expect(res.status).toBe(201);
    expect(res.body.condition).toBeNull();
  });

  it('answers validation failures with the flat { error } body', async () => {
    const cases: [object, RegExp | string][] = [
      [{ name: 'No condition' }, 'Condition is required and must be an object for DYNAMIC segments'],
      [{ name: 'String condition', condition: 'x' }, 'Condition is required and must be an object for DYNAMIC segments'],
      [{ condition: tagged('x') }, 'Name is required'],
      [{ name: 'n'.repeat(101), condition: tagged('x') }, 'Name must be at most 100 characters'],
      [{ name: 'd', description: 'd'.repeat(501), condition: tagged('x') }, 'Description must be at most 500 characters'],
      [{ name: 't', type: 'OTHER' }, 'Type must be one of DYNAMIC, STATIC'],
      [
        { name: 'op', condition: { logic: 'AND', groups: [{ filters: [{ field: 'email', operator: 'bogus' }] }] } },
        /^condition\.groups\.0\.filters\.0\.operator: /,
      ],
      [
        { name: 'field', condition: { logic: 'AND', groups: [{ filters: [{ field: 'nope', operator: 'equals', value: 1 }] }] } },
        /^condition\.groups\.0\.filters\.0\.field: /,
      ],
    ];
    for (const [body, message] of cases) {
      const res = await api().post('/segments', body);
      expect(res.status).toBe(400);
      expect(Object.keys(res.body)).toEqual(['error']);
      if (typeof message === 'string') expect(res.body.error).toBe(message);
      else expect(res.body.error).toMatch(message);
    }
  });

  it('checks a condition against the project field types (the compiler semantic check)', async () => {
    await contact({ score: 7 });
    const res = await api().post('/segments', {
      name: 'typed',
      condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.score', operator: 'contains', value: 'x' }] }] },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^condition\.groups\.0\.filters\.0\.operator: contains does not apply to a number field/);
  });

  it('patches a condition on DYNAMIC segments only, recounting it', async () => {
    const tag = newTag();
    await contact({ tag, n: 1 });
    await contact({ tag, n: 2 });
    const dynamic = await createSegment({ name: 'two', condition: tagged(tag) });
    expect(dynamic.memberCount).toBe(2);
    const narrowed = await api().patch(`/segments/${dynamic.id}`, { condition: tagged(tag, [{ field: 'data.n', operator: 'greaterThan', value: 1 }]) });
    expect(narrowed.status).toBe(200);
    expect(narrowed.body.memberCount).toBe(1);
    const bad = await api().patch(`/segments/${dynamic.id}`, { condition: null });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'Condition is required and must be an object for DYNAMIC segments' });
    const staticSeg = await createSegment({ name: 'static patch', type: 'STATIC' });
    const refused = await api().patch(`/segments/${staticSeg.id}`, { condition: tagged(tag) });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error: 'Condition can only be set on DYNAMIC segments' });
    expect((await api().patch(`/segments/${staticSeg.id}`, {})).body).toEqual({ error: 'Nothing to update' });
  });

  it('hides every segment from another project with 404', async () => {
    const seg = await createSegment({ name: 'private', type: 'STATIC' });
    const o = api(other);
    const email = uniqueEmail();
    const answers = await Promise.all([
      o.get(`/segments/${seg.id}`),
      o.patch(`/segments/${seg.id}`, { name: 'stolen' }),
      o.get(`/segments/${seg.id}/contacts`),
      o.post(`/segments/${seg.id}/members`, { emails: [email], createMissing: true }),
      o.del(`/segments/${seg.id}/members`, { emails: [email] }),
      o.post(`/segments/${seg.id}/compute`),
      o.post(`/segments/${seg.id}/refresh`),
      o.del(`/segments/${seg.id}`),
    ]);
    for (const res of answers) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    expect((await o.get('/segments')).body.map((s: any) => s.id)).not.toContain(seg.id);
    expect((await api().get(`/segments/${seg.id}`)).body.name).toBe('private');
    expect(await h.deps.knex('contacts').where({ email }).first()).toBeUndefined();
  });

  it('refuses to delete a segment a SCHEDULED or SENDING campaign uses (409), not one a SENT campaign used', async () => {
    const seg = await createSegment({ name: 'audience', type: 'STATIC' });
    const campaignId = await campaignTargeting(seg.id, 'SCHEDULED');
    for (const status of ['SCHEDULED', 'SENDING']) {
      await h.deps.knex('campaigns').where({ id: campaignId }).update({ status });
      const res = await api().del(`/segments/${seg.id}`);
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('CONFLICT');
    }
    await h.deps.knex('campaigns').where({ id: campaignId }).update({ status: 'SENT' });
    expect((await api().del(`/segments/${seg.id}`)).status).toBe(204);
  });

  it('refuses the delete that races a send of a campaign targeting the segment, once that send commits', async () => {
    const seg = await createSegment({ name: 'raced', type: 'STATIC' });
    const campaignId = await campaignTargeting(seg.id, 'DRAFT');
    const trx = await h.deps.knex.transaction();
    expect(await requestSend(trx, p.projectId, campaignId, new Date(Date.now() + 3600_000))).toMatchObject({ row: { status: 'SCHEDULED' } });
    // The delete starts while the send is uncommitted: its check alone would see a DRAFT campaign.
    const deleting = api()
      .del(`/segments/${seg.id}`)
      .then((r) => r);
    await new Promise((r) => setTimeout(r, 300));
    await trx.commit();
    const res = await deleting;
    expect(res.status).toBe(409);
    expect(await h.deps.knex('segments').where({ id: seg.id }).first()).toBeDefined();
    await h.deps.knex('campaigns').where({ id: campaignId }).del();
  });
});

describe('static members', () => {
  it('adds by email (createMissing with the given subscription), lists, removes, and reports notFound', async () => {
    const seg = await createSegment({ name: 'list', type: 'STATIC' });
    const known = await contact({}, uniqueEmail('known'));
    const [fresh, missing] = [uniqueEmail('fresh'), uniqueEmail('missing')];

    const noCreate = await api().post(`/segments/${seg.id}/members`, { emails: [known.email.toUpperCase(), missing] });
    expect(noCreate.status).toBe(200);
    expect(noCreate.body).toEqual({ added: 1, notFound: [missing] });

    const created = await api().post(`/segments/${seg.id}/members`, { emails: [known.email, fresh], createMissing: true, subscribed: false });
    expect(created.body).toEqual({ added: 1, notFound: [] });
    const freshRow = await h.deps.knex('contacts').where({ project_id: p.projectId, email: fresh }).first();
    expect(freshRow.subscribed).toBe(false);
    // An existing contact keeps its own subscription.
    expect((await h.deps.knex('contacts').where({ id: known.id }).first()).subscribed).toBe(true);

    expect((await api().get(`/segments/${seg.id}`)).body.memberCount).toBe(2);
    const page = await api().get(`/segments/${seg.id}/contacts`);
    expect(page.body).toMatchObject({ total: 2, page: 1, pageSize: 20 });
    expect(page.body.data.map((c: any) => c.email).sort()).toEqual([known.email, fresh].sort());

    const removed = await api().del(`/segments/${seg.id}/members`, { emails: [fresh, missing] });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ removed: 1, notFound: [missing] });
    expect((await api().get(`/segments/${seg.id}`)).body.memberCount).toBe(1);
  });

  it('refuses member routes on DYNAMIC segments and bad email lists with flat errors', async () => {
    const dynamic = await createSegment({ name: 'dyn members', condition: tagged(newTag()) });
    const res = await api().post(`/segments/${dynamic.id}/members`, { emails: [uniqueEmail()] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Members can only be added to STATIC segments' });
    expect((await api().del(`/segments/${dynamic.id}/members`, { emails: [uniqueEmail()] })).body).toEqual({
      error: 'Members can only be removed from STATIC segments',
    });
    const seg = await createSegment({ name: 'bad emails', type: 'STATIC' });
    expect((await api().post(`/segments/${seg.id}/members`, { emails: [] })).body).toEqual({ error: 'Emails must list at least one address' });
    expect((await api().post(`/segments/${seg.id}/members`, { emails: ['nope'] })).body.error).toMatch(/valid email/);
  });
});

describe('dynamic members and counts', () => {
  it('pages the live match, newest contacts first, with pageSize at most 100', async () => {
    const tag = newTag();
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await contact({ tag }));
    await contact({ tag: 'someone-else' });
    const seg = await createSegment({ name: 'paged', condition: tagged(tag) });
    const seen: string[] = [];
    for (const page of [1, 2, 3]) {
      const res = await api().get(`/segments/${seg.id}/contacts?page=${page}&pageSize=2`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ total: 5, page, pageSize: 2 });
      seen.push(...res.body.data.map((c: any) => c.id));
    }
    expect(seen).toEqual(made.map((c) => c.id).reverse());
    // The cursor each page hands out walks the same members by keyset, numbering pages as it goes,
    // for a static segment too; a cursor this API did not hand out is a 400.
    for (const target of [seg, await createSegment({ name: 'paged static', type: 'STATIC' })]) {
      if (target.type === 'STATIC') await api().post(`/segments/${target.id}/members`, { emails: made.map((c) => c.email) });
      const walked: string[] = [];
      const pages: number[] = [];
      let res = await api().get(`/segments/${target.id}/contacts?pageSize=2`);
      for (;;) {
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ total: 5, pageSize: 2, hasMore: res.body.cursor !== null });
        walked.push(...res.body.data.map((c: any) => c.id));
        pages.push(res.body.page);
        if (!res.body.cursor) break;
        res = await api().get(`/segments/${target.id}/contacts?pageSize=2&page=1&cursor=${res.body.cursor}`);
      }
      expect(walked).toEqual(made.map((c) => c.id).reverse());
      expect(pages).toEqual([1, 2, 3]);
    }
    for (const bad of ['nope', Buffer.from(JSON.stringify(['x', 'y', '1'])).toString('base64url')]) {
      const res = await api().get(`/segments/${seg.id}/contacts?cursor=${bad}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'Invalid cursor: pass the cursor of a previous page' });
    }
    const tooBig = await api().get(`/segments/${seg.id}/contacts?pageSize=101`);
    expect(tooBig.status).toBe(400);
    expect(Object.keys(tooBig.body)).toEqual(['error']);
  });

  it('caches memberCount until refresh; refresh writes no membership and no events', async () => {
    const tag = newTag();
    await contact({ tag });
    const seg = await createSegment({ name: 'cached', condition: tagged(tag), trackMembership: true });
    expect(seg.memberCount).toBe(1);
    const late = await contact({ tag });
    expect((await api().get(`/segments/${seg.id}`)).body.memberCount).toBe(1);
    const refreshed = await api().post(`/segments/${seg.id}/refresh`);
    expect(refreshed.status).toBe(200);
    expect(refreshed.body).toEqual({ memberCount: 2 });
    expect((await api().get(`/segments/${seg.id}`)).body.memberCount).toBe(2);
    expect(await h.deps.knex('segment_members').where({ segment_id: seg.id }).count('* as n')).toEqual([{ n: 0 }]);
    expect(await h.deps.knex('events').where({ contact_id: late.id }).where('name', 'like', 'segment.%')).toEqual([]);
  });

  it('answers 409 when a stored condition no longer fits a re-typed field, instead of failing', async () => {
    const key = `k${crypto.randomBytes(3).toString('hex')}`;
    const seg = await createSegment({
      name: 'retyped',
      condition: { logic: 'AND', groups: [{ filters: [{ field: `data.${key}`, operator: 'contains', value: 'a' }] }] },
    });
    await contact({ [key]: 5 });
    for (const res of [await api().post(`/segments/${seg.id}/refresh`), await api().get(`/segments/${seg.id}/contacts`)]) {
      expect(res.status).toBe(409);
      expect(res.body.error.message).toMatch(/no longer fits/);
    }
  });
});

describe('tracked compute', () => {
  const eventsOf = (contactId: string, name: string) => h.deps.knex('events').where({ contact_id: contactId, name });

  it('fires exactly one entry or exit per change and nothing when nothing changed; entry events are routed', async () => {
    const tag = newTag();
    const [a, b, c] = [await contact({ tag, plan: 'pro' }), await contact({ tag, plan: 'pro' }), await contact({ tag, plan: 'free' })];
    const seg = await createSegment({
      name: `Pro ${tag}`,
      condition: tagged(tag, [{ field: 'data.plan', operator: 'equals', value: 'pro' }]),
      trackMembership: true,
    });
    const entry = `segment.${seg.slug}.entry`;
    const exit = `segment.${seg.slug}.exit`;

    const first = await api().post(`/segments/${seg.id}/compute`);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ memberCount: 2, entered: 2, exited: 0 });
    for (const x of [a, b]) expect(await eventsOf(x.id, entry)).toHaveLength(1);
    expect(await eventsOf(c.id, entry)).toHaveLength(0);

    expect((await api().post(`/segments/${seg.id}/compute`)).body).toEqual({ memberCount: 2, entered: 0, exited: 0 });

    await upsertContact(h.deps.knex, { projectId: p.projectId, email: a.email, data: { plan: 'free' }, defaultSubscribed: true });
    await upsertContact(h.deps.knex, { projectId: p.projectId, email: c.email, data: { plan: 'pro' }, defaultSubscribed: true });
    expect((await api().post(`/segments/${seg.id}/compute`)).body).toEqual({ memberCount: 2, entered: 1, exited: 1 });
    expect(await eventsOf(a.id, exit)).toHaveLength(1);
    expect(await eventsOf(a.id, entry)).toHaveLength(1);
    expect(await eventsOf(c.id, entry)).toHaveLength(1);
    expect(await eventsOf(b.id, exit)).toHaveLength(0);
    expect((await api().get(`/segments/${seg.id}`)).body.memberCount).toBe(2);

    // Every change was handed to routeEvent, the workflow that starts what an event triggers.
    const all = await h.deps.knex('events').whereIn('name', [entry, exit]).where({ project_id: p.projectId });
    expect(all).toHaveLength(4);
    await eventually(
      async () =>
        (
          await h.deps
            .knex('events')
            .whereIn(
              'id',
              all.map((e: any) => e.id),
            )
            .whereNull('routed_at')
        ).length === 0,
    );
    expect(all[0].data).toMatchObject({ segmentId: seg.id, computeId: expect.stringMatching(`^segment-${seg.id}-`) });
  });

  it('starts a workflow triggered by segment.<slug>.entry for each contact that entered', async () => {
    const tag = newTag();
    const [a, b] = [await contact({ tag }), await contact({ tag })];
    const seg = await createSegment({ name: `Flow ${tag}`, condition: tagged(tag), trackMembership: true });
    const wf = await api().post('/workflows', { name: 'on entry', eventName: `segment.${seg.slug}.entry` });
    expect(wf.status).toBe(201);
    const trigger = wf.body.steps.find((s: any) => s.type === 'TRIGGER');
    const exit = await api().post(`/workflows/${wf.body.id}/steps`, { type: 'EXIT', config: {} });
    expect(exit.status).toBe(201);
    expect((await api().post(`/workflows/${wf.body.id}/transitions`, { fromStepId: trigger.id, toStepId: exit.body.id })).status).toBe(201);
    expect((await api().patch(`/workflows/${wf.body.id}`, { enabled: true })).status).toBe(200);

    expect((await api().post(`/segments/${seg.id}/compute`)).body).toMatchObject({ entered: 2 });
    const executions = await eventually(async () => {
      const res = await api().get(`/workflows/${wf.body.id}/executions`);
      return res.body.data?.length === 2 ? res.body.data : null;
    });
    expect(executions.map((e: any) => e.contactId).sort()).toEqual([a.id, b.id].sort());
  });

  it('gives the same result batch by batch, and a retried run commits nothing twice', async () => {
    const tag = newTag();
    const members = [];
    for (let i = 0; i < 7; i++) members.push(await contact({ tag, i }));
    const seg = await createSegment({
      name: `batched ${tag}`,
      condition: tagged(tag, [{ field: 'data.i', operator: 'lessThan', value: 5 }]),
      trackMembership: true,
    });
    const runId = `segment-${seg.id}-test-${tag}`;
    await beginCompute(h.deps.knex, seg.id, runId);
    let batches = 0;
    for (let done = false; !done; batches++) done = (await computeBatch(h.deps.knex, runId, 2)).done;
    // A retry after the last commit (the activity died before returning) finds the run finished.
    expect(await computeBatch(h.deps.knex, runId, 2)).toEqual({ done: true, events: [], walked: 0, entered: 0, exited: 0 });
    expect(batches).toBeGreaterThan(1);
    const result = await finishCompute(h.deps.knex, runId);
    expect(result).toEqual({ memberCount: 5, entered: 5, exited: 0 });
    expect(await finishCompute(h.deps.knex, runId)).toEqual(result);
    expect(await h.deps.knex('events').where({ name: `segment.${seg.slug}.entry` })).toHaveLength(5);
    // A second run overlapping the first sees nothing new: membership itself says who already entered.
    const again = `${runId}-2`;
    await beginCompute(h.deps.knex, seg.id, again);
    while (!(await computeBatch(h.deps.knex, again, 3)).done);
    expect(await finishCompute(h.deps.knex, again)).toEqual({ memberCount: 5, entered: 0, exited: 0 });
  });

  it('only refreshes the count of segments that do not track membership', async () => {
    const tag = newTag();
    await contact({ tag });
    const seg = await createSegment({ name: 'untracked', condition: tagged(tag) });
    await contact({ tag });
    expect((await api().post(`/segments/${seg.id}/compute`)).body).toEqual({ memberCount: 2, entered: 0, exited: 0 });
    expect(await h.deps.knex('segment_members').where({ segment_id: seg.id })).toEqual([]);
  });

  it('the segmentRecompute sweep computes every tracked segment', async () => {
    const tag = newTag();
    const x = await contact({ tag });
    const seg = await createSegment({ name: `swept ${tag}`, condition: tagged(tag), trackMembership: true });
    const client = await h.deps.temporal.client();
    await client.workflow.execute('segmentRecompute', { taskQueue: h.taskQueue, workflowId: `segment-recompute-test-${tag}`, args: [{}] });
    expect(await eventsOf(x.id, `segment.${seg.slug}.entry`)).toHaveLength(1);
    expect((await api().get(`/segments/${seg.id}`)).body.memberCount).toBe(1);
  });
});

describe("POST /contacts/count (the filter builder's live count)", () => {
  it('counts what the condition matches now, in this project only, and names each node the compiler refuses (422)', async () => {
    const tag = newTag();
    await contact({ tag, score: 5 });
    await contact({ tag, score: 50 });
    await contact({ tag: 'other' });
    await contact({ tag }, uniqueEmail(), other.projectId);
    const counted = await api().post('/contacts/count', { condition: tagged(tag) });
    expect(counted.status).toBe(200);
    expect(counted.body).toEqual({ count: 2 });
    expect((await api().post('/contacts/count', { condition: tagged(tag, [{ field: 'data.score', operator: 'greaterThan', value: 10 }]) })).body).toEqual({
      count: 1,
    });
    expect((await api(other).post('/contacts/count', { condition: tagged(tag) })).body).toEqual({ count: 1 });

    const refused = await api().post('/contacts/count', {
      condition: {
        logic: 'AND',
        groups: [
          {
            filters: [
              { field: 'data.tag', operator: 'equals', value: tag },
              { field: 'data.score', operator: 'contains', value: 'x' },
            ],
          },
        ],
      },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('VALIDATION_ERROR');
    expect(refused.body.error.errors).toEqual([
      expect.objectContaining({ field: 'condition.groups.0.filters.1.operator', message: expect.stringMatching(/contains does not apply to a number field/) }),
    ]);
    const malformed = await api().post('/contacts/count', { condition: 'x' });
    expect(malformed.status).toBe(422);
    expect((await api().post('/contacts/count', {})).status).toBe(422);
  });
});
