import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';

let h: Harness;
let p: ProjectFixture;

beforeAll(async () => {
  h = await startHarness();
  p = await createProjectFixture(h);
});
afterAll(() => h?.stop());

describe('API keys', () => {
  it('shows full keys only at creation, masked in listings', async () => {
    expect(p.publicKey).toMatch(/^pk_[0-9A-Za-z]{40,}$/);
    expect(p.secretKey).toMatch(/^sk_[0-9A-Za-z]{40,}$/);
    const list = await h.http.get('/users/@me/projects').set('Cookie', p.cookie);
    expect(list.status).toBe(200);
    const mine = list.body.find((x: any) => x.id === p.projectId);
    expect(mine.secretKey).toBe(`sk_…${p.secretKey.slice(-4)}`);
    expect(mine.publicKey).toBe(`pk_…${p.publicKey.slice(-4)}`);
    const row = await h.deps.knex('projects').where({ id: p.projectId }).first();
    expect(JSON.stringify(row)).not.toContain(p.secretKey.slice(3));
  });

  it('rejects a public key on a secret route with INVALID_API_KEY and the full envelope', async () => {
    const res = await h.http.get('/contacts').set(bearer(p.publicKey));
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({
      success: false,
      error: { code: 'INVALID_API_KEY', statusCode: 401, message: expect.any(String), requestId: expect.stringMatching(/^req_/) },
      timestamp: expect.any(String),
    });
    expect(res.headers['x-request-id']).toBe(res.body.error.requestId);
  });

  it('rejects a secret key on /v1/track with INVALID_API_KEY', async () => {
    const res = await h.http.post('/v1/track').set(bearer(p.secretKey)).send({ email: 'a@b.co', event: 'x' });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_API_KEY');
  });

  it('answers 401 UNAUTHORIZED for a missing or unknown key', async () => {
    const none = await h.http.get('/contacts');
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('UNAUTHORIZED');
    const unknown = await h.http.get('/contacts').set(bearer('sk_doesnotexist'));
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.code).toBe('UNAUTHORIZED');
  });

  it('kills the old keys on the very next request after regenerate-keys', async () => {
    const own = await createProjectFixture(h, 'rotation');
    expect((await h.http.get('/contacts').set(bearer(own.secretKey))).status).toBe(200);
    const rotated = await h.http.post(`/users/@me/projects/${own.projectId}/regenerate-keys`).set('Cookie', own.cookie);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secretKey).toMatch(/^sk_/);
    expect(rotated.body.secretKey).not.toBe(own.secretKey);
    const old = await h.http.get('/contacts').set(bearer(own.secretKey));
    expect(old.status).toBe(401);
    const fresh = await h.http.get('/contacts').set(bearer(rotated.body.secretKey));
    expect(fresh.status).toBe(200);
  });

  it('answers 403 PROJECT_DISABLED for a disabled project', async () => {
    const own = await createProjectFixture(h, 'disabled');
    await h.deps.knex('projects').where({ id: own.projectId }).update({ disabled: true });
    const res = await h.http.get('/contacts').set(bearer(own.secretKey));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('PROJECT_DISABLED');
  });
});

describe('dashboard auth', () => {
  it('signs up, refuses a taken email, logs in with one message for both wrong cases', async () => {
    const dup = await h.http.post('/auth/signup').send({ email: p.email, password: 'another password' });
    expect(dup.status).toBe(409);
    const short = await h.http.post('/auth/signup').send({ email: 'new@example.test', password: 'short' });
    expect(short.status).toBe(422);
    expect(short.body.error.errors[0]).toMatchObject({ field: 'password', code: 'too_small' });
    const ok = await h.http.post('/auth/login').send({ email: p.email, password: 'correct horse battery' });
    expect(ok.status).toBe(200);
    expect(ok.headers['set-cookie'][0]).toMatch(/token=.*httponly/i);
    const wrongPw = await h.http.post('/auth/login').send({ email: p.email, password: 'wrong password' });
    const unknown = await h.http.post('/auth/login').send({ email: 'nobody@example.test', password: 'wrong password' });
    expect(wrongPw.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrongPw.body.error.message).toBe(unknown.body.error.message);
    const me = await h.http.get('/users/@me').set('Cookie', p.cookie);
    expect(me.body).toMatchObject({ id: p.userId, email: p.email });
    expect(me.body.password_hash).toBeUndefined();
  });

  it('refuses signups when DISABLE_SIGNUPS is set', async () => {
    const closed = await startHarness({ env: { DISABLE_SIGNUPS: 'true' } });
    try {
      const res = await closed.http.post('/auth/signup').send({ email: 'x@example.test', password: 'long enough pw' });
      expect(res.status).toBe(403);
    } finally {
      await closed.stop();
    }
  });

  it('lets only members touch a project', async () => {
    const other = await createProjectFixture(h, 'other');
    const res = await h.http.patch(`/users/@me/projects/${other.projectId}`).set('Cookie', p.cookie).send({ name: 'mine now' });
    expect(res.status).toBe(404);
    const del = await h.http.delete(`/users/@me/projects/${other.projectId}`).set('Cookie', p.cookie);
    expect(del.status).toBe(404);
    const rot = await h.http.post(`/users/@me/projects/${other.projectId}/regenerate-keys`).set('Cookie', p.cookie);
    expect(rot.status).toBe(404);
  });
});
