import crypto from 'node:crypto';
import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';

/**
 * The secret-key routes also take the session cookie plus X-Project-Id (api/middleware/auth.ts
 * projectFromSession; docs/api.md "Cookie access"): the dashboard is a client of the public API.
 */

const APP = 'http://app.example.test:8080';

let h: Harness;
let owner: ProjectFixture;
let outsider: ProjectFixture;
let memberCookie: string;

beforeAll(async () => {
  h = await startHarness({ env: { APP_URL: `${APP}/` } });
  [owner, outsider] = await Promise.all([createProjectFixture(h, 'cookie access'), createProjectFixture(h, 'someone else')]);
  const email = `m-${crypto.randomBytes(5).toString('hex')}@example.test`;
  const signup = await h.http.post('/auth/signup').send({ email, password: 'correct horse battery' });
  await h.deps.knex('users').where({ id: signup.body.id }).update({ email_verified: true });
  memberCookie = (signup.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
  const joined = await h.http.post(`/projects/${owner.projectId}/members`).set('Cookie', owner.cookie).send({ email, role: 'MEMBER' });
  expect(joined.status).toBe(201);
});
afterAll(() => h?.stop());

const asCookie = (cookie: string, projectId?: string) => ({ Cookie: cookie, ...(projectId ? { 'X-Project-Id': projectId } : {}) });
const fresh = () => `c-${crypto.randomBytes(5).toString('hex')}@example.test`;
const requests = async (projectId: string) => Number((await h.deps.knex('rate_limits').where({ project_id: projectId }).sum({ n: 'count' }))[0].n ?? 0);

describe('the session cookie on secret-key routes', () => {
  it('with X-Project-Id of its own project: reads and writes that project (an owner)', async () => {
    const email = fresh();
    const created = await h.http.post('/contacts').set(asCookie(owner.cookie, owner.projectId)).send({ email });
    expect(created.status).toBe(201);
    const byKey = await h.http.get(`/contacts/${created.body.id}`).set(bearer(owner.secretKey));
    expect(byKey.status).toBe(200);
    expect(byKey.body.email).toBe(email);
    const list = await h.http.get('/contacts').set(asCookie(owner.cookie, owner.projectId));
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.body)).toContain(email);
  });

  it('lets a MEMBER use the resource routes (docs/roles.md)', async () => {
    const created = await h.http.post('/contacts').set(asCookie(memberCookie, owner.projectId)).send({ email: fresh() });
    expect(created.status).toBe(201);
    expect((await h.http.get(`/domains/project/${owner.projectId}`).set(asCookie(memberCookie, owner.projectId))).status).toBe(200);
  });

  it('answers 404 NOT_FOUND for a project the user is not a member of, and touches nothing there', async () => {
    const email = fresh();
    const res = await h.http.post('/contacts').set(asCookie(outsider.cookie, owner.projectId)).send({ email });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    const read = await h.http.get('/contacts').set(asCookie(outsider.cookie, owner.projectId));
    expect(read.status).toBe(404);
    expect(await h.deps.knex('contacts').where({ email })).toHaveLength(0);
  });

  it.each([
    ['an unknown project id', crypto.randomUUID()],
    ['a malformed project id', 'not-a-uuid'],
  ])('answers 404 NOT_FOUND for %s', async (_, id) => {
    const res = await h.http.get('/contacts').set(asCookie(owner.cookie, id));
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });

  it('answers 401 for the cookie without X-Project-Id, and for a bad cookie', async () => {
    const noHeader = await h.http.get('/contacts').set(asCookie(owner.cookie));
    expect(noHeader.status).toBe(401);
    expect(noHeader.body.error.message).toMatch(/X-Project-Id/);
    const bad = await h.http.get('/contacts').set(asCookie('token=forged.jwt.value', owner.projectId));
    expect(bad.status).toBe(401);
  });

  it('judges a request carrying a key on the key alone', async () => {
    // The outsider's own key with the owner's cookie and project: the key's project is used.
    const email = fresh();
    const res = await h.http.post('/contacts').set(bearer(outsider.secretKey)).set(asCookie(owner.cookie, owner.projectId)).send({ email });
    expect(res.status).toBe(201);
    const row = await h.deps.knex('contacts').where({ email }).first('project_id');
    expect(row.project_id).toBe(outsider.projectId);
    // A wrong key is refused even beside a valid cookie.
    const wrong = await h.http.get('/contacts').set(bearer('sk_wrong')).set(asCookie(owner.cookie, owner.projectId));
    expect(wrong.status).toBe(401);
    const publicKey = await h.http.get('/contacts').set(bearer(owner.publicKey)).set(asCookie(owner.cookie, owner.projectId));
    expect(publicKey.status).toBe(401);
    expect(publicKey.body.error.code).toBe('INVALID_API_KEY');
  });

  it('keeps /v1/track public-key only', async () => {
    const res = await h.http.post('/v1/track').set(asCookie(owner.cookie, owner.projectId)).send({ event: 'x', email: fresh() });
    expect(res.status).toBe(401);
  });

  it("counts against the project's rate limit like its key", async () => {
    const before = await requests(owner.projectId);
    const res = await h.http.get('/contacts').set(asCookie(owner.cookie, owner.projectId));
    expect(res.status).toBe(200);
    expect(res.headers['ratelimit-limit']).toBeDefined();
    expect(await requests(owner.projectId)).toBe(before + 1);
  });

  it("applies the project's billing limits", async () => {
    const q = await createProjectFixture(h, 'limited');
    await h.deps.knex('domains').insert({
      id: crypto.randomUUID(),
      project_id: q.projectId,
      domain: 'limited.example.com',
      token: 't',
      status: 'VERIFIED',
      records: JSON.stringify([]),
      verified_at: new Date(),
    });
    const set = await h.http.put(`/users/@me/projects/${q.projectId}/billing-limits`).set('Cookie', q.cookie).send({ emails: 1 });
    expect(set.status).toBe(200);
    const refused = await h.http
      .post('/v1/send')
      .set(asCookie(q.cookie, q.projectId))
      .send({ to: [fresh(), fresh()], from: 'hello@limited.example.com', subject: 'Hi', body: '<p>Hi</p>' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('BILLING_LIMIT_REACHED');
  });
});

describe('cookie writes to secret-key routes pass the cross-site guard', () => {
  it.each([
    ['a foreign Origin', { Origin: 'https://evil.example' }],
    ['Sec-Fetch-Site cross-site', { 'Sec-Fetch-Site': 'cross-site' }],
  ])('refuses %s with 403 FORBIDDEN and creates nothing', async (_, headers) => {
    const email = fresh();
    const res = await h.http.post('/contacts').set(asCookie(owner.cookie, owner.projectId)).set(headers).send({ email });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
    expect(await h.deps.knex('contacts').where({ email })).toHaveLength(0);
  });

  it('refuses a form-encoded body with 415', async () => {
    const res = await h.http.post('/contacts').set(asCookie(owner.cookie, owner.projectId)).set('Origin', APP).type('form').send(`email=${fresh()}`);
    expect(res.status).toBe(415);
  });

  it('accepts the app origin with JSON', async () => {
    const res = await h.http.post('/contacts').set(asCookie(owner.cookie, owner.projectId)).set('Origin', APP).send({ email: fresh() });
    expect(res.status).toBe(201);
  });

  it('leaves cookie reads from another origin to CORS (no CORS header is sent)', async () => {
    const res = await h.http.get('/contacts').set(asCookie(owner.cookie, owner.projectId)).set('Origin', 'https://evil.example');
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});
