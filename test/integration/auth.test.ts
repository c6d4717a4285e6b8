import crypto from 'node:crypto';
import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';
import { pruneAuthThrottle } from '../../db/authThrottle';

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

const cookieOf = (res: { headers: Record<string, any> }) => (res.headers['set-cookie'] as string[])[0].split(';')[0];
/** The Set-Cookie that removes the session cookie. */
const clearsCookie = (res: { headers: Record<string, any> }) =>
  ((res.headers['set-cookie'] as string[] | undefined) ?? []).some((c) => /^token=;/.test(c) && /expires=Thu, 01 Jan 1970/i.test(c));
const login = (email: string, password: string, ip?: string) => {
  const req = h.http.post('/auth/login');
  if (ip) req.set('X-Forwarded-For', ip);
  return req.send({ email, password });
};
const freshIp = () => `10.${crypto.randomInt(256)}.${crypto.randomInt(256)}.${crypto.randomInt(1, 255)}`;

describe('sessions', () => {
  it('POST /auth/logout-all ends every session of the user, and only theirs; a new sign-in works', async () => {
    const me = await createProjectFixture(h, 'logout-all');
    const other = await createProjectFixture(h, 'bystander');
    const second = await login(me.email, 'correct horse battery');
    expect(second.status).toBe(200);
    const laptop = cookieOf(second);
    expect((await h.http.get('/users/@me').set('Cookie', laptop)).status).toBe(200);

    const res = await h.http.post('/auth/logout-all').set('Cookie', me.cookie);
    expect(res.status).toBe(204);
    expect(clearsCookie(res)).toBe(true);
    for (const stale of [me.cookie, laptop]) {
      const denied = await h.http.get('/users/@me').set('Cookie', stale);
      expect(denied.status).toBe(401);
      expect(denied.body.error.code).toBe('UNAUTHORIZED');
    }
    expect((await h.http.get('/users/@me').set('Cookie', other.cookie)).status).toBe(200);
    const again = await login(me.email, 'correct horse battery');
    expect((await h.http.get('/users/@me').set('Cookie', cookieOf(again))).status).toBe(200);
  });

  it('POST /auth/logout-all needs a session and refuses another origin', async () => {
    expect((await h.http.post('/auth/logout-all')).status).toBe(401);
    const me = await createProjectFixture(h, 'logout-all-csrf');
    const res = await h.http.post('/auth/logout-all').set('Cookie', me.cookie).set('Origin', 'https://evil.example');
    expect(res.status).toBe(403);
    expect((await h.http.get('/users/@me').set('Cookie', me.cookie)).status).toBe(200);
  });

  it('POST /auth/logout clears the cookie with 204, also from a form on our own origin; GET keeps the spec answer', async () => {
    const post = await h.http.post('/auth/logout');
    expect(post.status).toBe(204);
    expect(clearsCookie(post)).toBe(true);
    const form = await h.http
      .post('/auth/logout')
      .set('Origin', new URL(h.config.appUrl).origin)
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send('');
    expect(form.status).toBe(204);
    expect(clearsCookie(form)).toBe(true);
    const got = await h.http.get('/auth/logout');
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ success: true });
    expect(clearsCookie(got)).toBe(true);
  });

  it('POST /auth/logout refuses a form from another site', async () => {
    const res = await h.http.post('/auth/logout').set('Origin', 'https://evil.example').set('Content-Type', 'application/x-www-form-urlencoded').send('');
    expect(res.status).toBe(403);
    expect(res.headers['set-cookie']).toBeUndefined();
  });
});

describe('sign-in limits', () => {
  it('locks an account after 5 failed sign-ins, even for the right password, with a doubling lock; success clears the count', async () => {
    const me = await createProjectFixture(h, 'lockout');
    for (let i = 0; i < 5; i++) expect((await login(me.email, `wrong password ${i}`)).status).toBe(401);
    const locked = await login(me.email, 'correct horse battery');
    expect(locked.status).toBe(429);
    expect(locked.body).toMatchObject({ success: false, error: { code: 'RATE_LIMIT_EXCEEDED', statusCode: 429, details: { retryAfter: expect.any(Number) } } });
    const first = Number(locked.headers['retry-after']);
    expect(first).toBe(locked.body.error.details.retryAfter);
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(60);
    // The same address in another case is the same account.
    expect((await login(me.email.toUpperCase(), 'correct horse battery')).status).toBe(429);

    // The lock runs out (moved into the past rather than waited for); the next failure locks for twice as long.
    const lockRow = () => h.deps.knex('auth_throttle').where({ scope: 'account', key: me.email });
    await lockRow().update({ locked_until: h.deps.knex.raw("now() - interval '1 second'") });
    expect((await login(me.email, 'wrong again')).status).toBe(401);
    const longer = await login(me.email, 'correct horse battery');
    expect(longer.status).toBe(429);
    expect(Number(longer.headers['retry-after'])).toBeGreaterThan(60);
    expect(Number(longer.headers['retry-after'])).toBeLessThanOrEqual(120);

    await lockRow().update({ locked_until: h.deps.knex.raw("now() - interval '1 second'") });
    expect((await login(me.email, 'correct horse battery')).status).toBe(200);
    expect(await lockRow().first()).toBeUndefined();
    for (let i = 0; i < 4; i++) expect((await login(me.email, `wrong password ${i}`)).status).toBe(401);
    expect((await login(me.email, 'correct horse battery')).status).toBe(200);
  });

  it('locks an unknown address the same way, so the answer does not reveal which exist', async () => {
    const nobody = `nobody-${crypto.randomBytes(4).toString('hex')}@example.test`;
    for (let i = 0; i < 5; i++) expect((await login(nobody, 'wrong password')).status).toBe(401);
    expect((await login(nobody, 'wrong password')).status).toBe(429);
  });

  it('counts parallel guesses before hashing: at most 5 of 12 at once reach the password check', async () => {
    const me = await createProjectFixture(h, 'parallel');
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => login(me.email, `parallel guess ${i}`)));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(7);
  });

  it('limits login, signup and password-reset attempts per client address, answered in the envelope with Retry-After', async () => {
    const limited = await startHarness({ env: { AUTH_RATE_LIMIT_PER_MINUTE: '3' } });
    try {
      const ip = freshIp();
      const email = `limit-${crypto.randomBytes(4).toString('hex')}@example.test`;
      expect((await limited.http.post('/auth/signup').set('X-Forwarded-For', ip).send({ email, password: 'correct horse battery' })).status).toBe(201);
      expect((await limited.http.post('/auth/request-password-reset').set('X-Forwarded-For', ip).send({ email })).status).toBe(200);
      expect((await limited.http.post('/auth/login').set('X-Forwarded-For', ip).send({ email, password: 'correct horse battery' })).status).toBe(200);
      for (const attempt of [
        limited.http.post('/auth/login').set('X-Forwarded-For', ip).send({ email, password: 'correct horse battery' }),
        limited.http
          .post('/auth/signup')
          .set('X-Forwarded-For', ip)
          .send({ email: `x${email}`, password: 'correct horse battery' }),
        limited.http.post('/auth/reset-password').set('X-Forwarded-For', ip).send({ token: 'abc', password: 'correct horse battery' }),
      ]) {
        const res = await attempt;
        expect(res.status).toBe(429);
        expect(res.body).toMatchObject({ success: false, error: { code: 'RATE_LIMIT_EXCEEDED', statusCode: 429, requestId: expect.stringMatching(/^req_/) } });
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
        expect(res.body.error.details.retryAfter).toBe(Number(res.headers['retry-after']));
      }
      // The refused signup created nothing; another address is not limited.
      expect(
        await limited.deps
          .knex('users')
          .where({ email: `x${email}` })
          .first(),
      ).toBeUndefined();
      expect((await limited.http.post('/auth/login').set('X-Forwarded-For', freshIp()).send({ email, password: 'correct horse battery' })).status).toBe(200);
    } finally {
      await limited.stop();
    }
  });

  it('prunes rows that no longer limit anything', async () => {
    const key = `prune-${crypto.randomBytes(4).toString('hex')}`;
    await h.deps.knex('auth_throttle').insert([
      { scope: 'ip', key: `old-${key}`, tat: h.deps.knex.raw("now() - interval '1 second'") },
      { scope: 'ip', key: `live-${key}`, tat: h.deps.knex.raw("now() + interval '30 seconds'") },
      { scope: 'account', key: `old-${key}`, count: 3, last_at: h.deps.knex.raw("now() - interval '16 minutes'") },
      {
        scope: 'account',
        key: `locked-${key}`,
        count: 9,
        last_at: h.deps.knex.raw("now() - interval '16 minutes'"),
        locked_until: h.deps.knex.raw("now() + interval '1 hour'"),
      },
    ]);
    await pruneAuthThrottle(h.deps.knex);
    const left = await h.deps.knex('auth_throttle').where('key', 'like', `%${key}`).orderBy('key').pluck('key');
    expect(left).toEqual([`live-${key}`, `locked-${key}`]);
  });
});
