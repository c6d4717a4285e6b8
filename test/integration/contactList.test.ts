import crypto from 'node:crypto';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { contactId } from '../../lib/ids';

/**
 * The contacts list's server side (docs/dashboard.md "Contacts"): saved views, the list by filter
 * tree (POST /contacts/search) and bulk jobs over a whole selection (`matching`).
 */

let h: Harness;
let p: ProjectFixture;
let other: ProjectFixture;

beforeAll(async () => {
  h = await startHarness({ worker: true });
  [p, other] = await Promise.all([createProjectFixture(h, 'list'), createProjectFixture(h, 'list-other')]);
});
afterAll(() => h?.stop());

const tree = (field: string, operator: string, value: unknown) => ({ logic: 'AND', groups: [{ filters: [{ field, operator, value }] }] });
const PRO = tree('data.plan', 'equals', 'pro');

/** Contacts written straight to the table: thousands through the API would be the slow part of the test. */
async function seed(projectId: string, prefix: string, count: number, data: (i: number) => Record<string, unknown>) {
  const rows = Array.from({ length: count }, (_, i) => ({
    id: contactId(),
    project_id: projectId,
    email: `${prefix}-${i}@list.test`,
    subscribed: true,
    data: JSON.stringify(data(i)),
  }));
  for (let i = 0; i < rows.length; i += 1000) await h.deps.knex('contacts').insert(rows.slice(i, i + 1000));
  return rows.map((r) => r.id);
}

async function audit(projectId: string, action: string) {
  return h.deps.knex('audit_log').where({ project_id: projectId, action }).orderBy('id').select('*');
}

describe('saved views', () => {
  const dash = (cookie: string, projectId = p.projectId) => ({ Cookie: cookie, 'X-Project-Id': projectId, Origin: h.config.appUrl });

  it('are created, listed, changed and deleted, each change audited', async () => {
    const created = await h.http
      .post('/contact-views')
      .set(bearer(p.secretKey))
      .send({ name: 'Pro plan', filter: PRO, search: 'acme', columns: ['email', 'data.plan'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Pro plan', filter: PRO, search: 'acme', columns: ['email', 'data.plan'] });
    const id = created.body.id;

    const list = await h.http.get('/contact-views').set(bearer(p.secretKey));
    expect(list.body.data.map((v: { id: string }) => v.id)).toContain(id);

    const changed = await h.http
      .patch(`/contact-views/${id}`)
      .set(bearer(p.secretKey))
      .send({ columns: ['email', 'createdAt'], search: null });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ name: 'Pro plan', filter: PRO, search: null, columns: ['email', 'createdAt'] });

    expect((await h.http.delete(`/contact-views/${id}`).set(bearer(p.secretKey))).status).toBe(204);
    expect((await h.http.delete(`/contact-views/${id}`).set(bearer(p.secretKey))).status).toBe(404);

    for (const action of ['contact_view.create', 'contact_view.update', 'contact_view.delete']) {
      const entries = (await audit(p.projectId, action)).filter((e) => e.target_id === id);
      expect(entries).toHaveLength(1);
    }
  });

  it('refuses a taken name (409), a filter that does not compile and an unknown column (422)', async () => {
    const name = `Taken ${crypto.randomBytes(3).toString('hex')}`;
    expect((await h.http.post('/contact-views').set(bearer(p.secretKey)).send({ name })).status).toBe(201);
    expect((await h.http.post('/contact-views').set(bearer(p.secretKey)).send({ name })).status).toBe(409);
    const second = await h.http
      .post('/contact-views')
      .set(bearer(p.secretKey))
      .send({ name: `${name} 2` });
    expect((await h.http.patch(`/contact-views/${second.body.id}`).set(bearer(p.secretKey)).send({ name })).status).toBe(409);

    const badTree = await h.http
      .post('/contact-views')
      .set(bearer(p.secretKey))
      .send({ name: 'Bad', filter: tree('subscribed', 'greaterThan', 'yes') });
    expect(badTree.status).toBe(422);
    const badColumn = await h.http
      .post('/contact-views')
      .set(bearer(p.secretKey))
      .send({ name: 'Bad', columns: ['password'] });
    expect(badColumn.status).toBe(422);
  });

  it('are shared with every member, whatever the role, and no other project reaches them', async () => {
    const email = `member-${crypto.randomBytes(4).toString('hex')}@example.test`;
    const signup = await h.http.post('/auth/signup').send({ email, password: 'correct horse battery' });
    await h.deps.knex('users').where({ id: signup.body.id }).update({ email_verified: true });
    const memberCookie = (signup.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
    expect((await h.http.post(`/projects/${p.projectId}/members`).set('Cookie', p.cookie).send({ email, role: 'MEMBER' })).status).toBe(201);

    const mine = await h.http
      .post('/contact-views')
      .set(dash(memberCookie))
      .send({ name: `Member's ${email}` });
    expect(mine.status).toBe(201);
    const seenByOwner = await h.http.get('/contact-views').set(dash(p.cookie));
    expect(seenByOwner.body.data.map((v: { id: string }) => v.id)).toContain(mine.body.id);
    expect(
      (
        await h.http
          .patch(`/contact-views/${mine.body.id}`)
          .set(dash(p.cookie))
          .send({ columns: ['email'] })
      ).status,
    ).toBe(200);

    // The other project: its key and its owner's cookie see nothing of ours.
    const theirs = await h.http.get('/contact-views').set(bearer(other.secretKey));
    expect(theirs.body.data.map((v: { id: string }) => v.id)).not.toContain(mine.body.id);
    expect((await h.http.patch(`/contact-views/${mine.body.id}`).set(bearer(other.secretKey)).send({ name: 'x' })).status).toBe(404);
    expect((await h.http.delete(`/contact-views/${mine.body.id}`).set(bearer(other.secretKey))).status).toBe(404);
    expect((await h.http.get('/contact-views').set(dash(other.cookie))).status).toBe(404);
    expect((await h.http.get(`/contact-views`).set(bearer(p.secretKey))).body.data.map((v: { id: string }) => v.id)).toContain(mine.body.id);
  });
});

describe('POST /contacts/search', () => {
  it('lists exactly the contacts a filter tree and the search select, by keyset pages', async () => {
    const fx = await createProjectFixture(h, 'search');
    await seed(fx.projectId, 'pro', 30, (i) => ({ plan: i % 3 === 0 ? 'pro' : 'free', score: i }));
    const seen: string[] = [];
    let cursor: string | undefined;
    let total = -1;
    do {
      const res = await h.http.post('/contacts/search').set(bearer(fx.secretKey)).send({ filter: PRO, limit: 4, cursor, sort: 'email', dir: 'asc' });
      expect(res.status).toBe(200);
      if (total < 0) total = res.body.total;
      seen.push(...res.body.data.map((c: { email: string }) => c.email));
      cursor = res.body.hasMore ? res.body.cursor : undefined;
    } while (cursor);
    const expected = Array.from({ length: 30 }, (_, i) => i)
      .filter((i) => i % 3 === 0)
      .map((i) => `pro-${i}@list.test`)
      .sort();
    expect(seen).toEqual(expected);
    expect(total).toBe(10);

    const searched = await h.http.post('/contacts/search').set(bearer(fx.secretKey)).send({ filter: PRO, search: 'pro-2' });
    expect(searched.body.data.map((c: { email: string }) => c.email).sort()).toEqual(['pro-21@list.test', 'pro-24@list.test', 'pro-27@list.test']);

    const bad = await h.http
      .post('/contacts/search')
      .set(bearer(fx.secretKey))
      .send({ filter: tree('subscribed', 'greaterThan', 'yes') });
    expect(bad.status).toBe(422);
    // Another project's key lists its own contacts only.
    expect((await h.http.post('/contacts/search').set(bearer(other.secretKey)).send({ filter: PRO })).body.total).toBe(0);
  });
});

describe('bulk jobs over a selection (`matching`)', () => {
  it('unsubscribes exactly the 2,500 contacts a filter matches, with moving progress and one audit entry', async () => {
    const fx = await createProjectFixture(h, 'bulk-matching');
    const ids = await seed(fx.projectId, 'b', 3000, (i) => ({ plan: i < 2500 ? 'pro' : 'free' }));
    const theirs = await seed(other.projectId, 'theirs', 20, () => ({ plan: 'pro' }));

    const res = await h.http
      .post('/contacts/bulk-unsubscribe')
      .set(bearer(fx.secretKey))
      .send({ matching: { filter: PRO } });
    expect(res.status).toBe(202);
    const seen: number[] = [];
    const job = await eventually(
      async () => {
        const r = await h.http.get(`/contacts/bulk/${res.body.jobId}`).set(bearer(fx.secretKey));
        seen.push(r.body.processed);
        return r.body.status === 'COMPLETED' && r.body;
      },
      240_000,
      25,
    );
    expect(job).toMatchObject({ total: 2500, processed: 2500, succeeded: 2500, failed: 0 });
    expect(seen.some((n) => n > 0 && n < 2500)).toBe(true);

    const unsubscribed = await h.deps.knex('contacts').where({ project_id: fx.projectId, subscribed: false }).pluck('id');
    expect(unsubscribed.sort()).toEqual(ids.slice(0, 2500).sort());
    expect(await h.deps.knex('contacts').whereIn('id', theirs).where({ subscribed: false }).pluck('id')).toEqual([]);

    const entries = await audit(fx.projectId, 'contact.bulk_unsubscribe');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ target_type: 'job', target_id: res.body.jobId, details: { contacts: 2500, matching: true } });
  }, 300_000);

  it('takes the search too, and `matching: {}` is every contact', async () => {
    const fx = await createProjectFixture(h, 'bulk-search');
    await seed(fx.projectId, 'keep', 5, () => ({}));
    await seed(fx.projectId, 'drop', 7, () => ({}));
    const del = await h.http
      .post('/contacts/bulk-delete')
      .set(bearer(fx.secretKey))
      .send({ matching: { search: 'drop-' } });
    expect(del.status).toBe(202);
    await eventually(async () => (await h.http.get(`/contacts/bulk/${del.body.jobId}`).set(bearer(fx.secretKey))).body.status === 'COMPLETED');
    const left = await h.deps.knex('contacts').where({ project_id: fx.projectId }).pluck('email');
    expect(left.sort()).toEqual(['keep-0', 'keep-1', 'keep-2', 'keep-3', 'keep-4'].map((e) => `${e}@list.test`));

    const all = await h.http.post('/contacts/bulk-unsubscribe').set(bearer(fx.secretKey)).send({ matching: {} });
    const done = await eventually(async () => {
      const r = await h.http.get(`/contacts/bulk/${all.body.jobId}`).set(bearer(fx.secretKey));
      return r.body.status === 'COMPLETED' && r.body;
    });
    expect(done.succeeded).toBe(5);
  });

  it('keeps the id form as it was, and refuses both forms or neither', async () => {
    const ids = Array.from({ length: 1001 }, (_, i) => `cnt_${i}`);
    expect((await h.http.post('/contacts/bulk-subscribe').set(bearer(p.secretKey)).send({ contactIds: ids })).status).toBe(422);
    expect((await h.http.post('/contacts/bulk-subscribe').set(bearer(p.secretKey)).send({})).status).toBe(422);
    expect(
      (
        await h.http
          .post('/contacts/bulk-subscribe')
          .set(bearer(p.secretKey))
          .send({ contactIds: ['a'], matching: {} })
      ).status,
    ).toBe(422);
    const bad = await h.http
      .post('/contacts/bulk-delete')
      .set(bearer(p.secretKey))
      .send({ matching: { filter: tree('subscribed', 'greaterThan', 'yes') } });
    expect(bad.status).toBe(422);
  });
});

describe('POST /contacts/export with a view', () => {
  it("writes the view's columns for the contacts its filter matches", async () => {
    const fx = await createProjectFixture(h, 'export-view');
    await seed(fx.projectId, 'x', 6, (i) => ({ plan: i % 2 ? 'pro' : 'free', score: i }));
    const res = await h.http
      .post('/contacts/export')
      .set(bearer(fx.secretKey))
      .send({ filter: PRO, columns: ['email', 'data.score'] });
    expect(res.status).toBe(202);
    await eventually(async () => (await h.http.get(`/contacts/export/${res.body.jobId}`).set(bearer(fx.secretKey))).body.status === 'COMPLETED');
    const file = await h.http.get(`/contacts/export/${res.body.jobId}/download`).set(bearer(fx.secretKey));
    const [header, ...lines] = file.text.trim().split(/\r?\n/);
    expect(header).toBe('email,data.score');
    expect(lines.sort()).toEqual(['x-1@list.test,1', 'x-3@list.test,3', 'x-5@list.test,5']);

    // With the view's search too: the rows the list shows, no more.
    const searched = await h.http
      .post('/contacts/export')
      .set(bearer(fx.secretKey))
      .send({ filter: PRO, search: 'x-3', columns: ['email'] });
    expect(searched.status).toBe(202);
    await eventually(async () => (await h.http.get(`/contacts/export/${searched.body.jobId}`).set(bearer(fx.secretKey))).body.status === 'COMPLETED');
    const narrow = await h.http.get(`/contacts/export/${searched.body.jobId}/download`).set(bearer(fx.secretKey));
    expect(narrow.text.trim().split(/\r?\n/)).toEqual(['email', 'x-3@list.test']);
  });
});
