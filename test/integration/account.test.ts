import crypto from 'node:crypto';
import { startHarness, createProjectFixture, eventually, Harness, ProjectFixture } from '../helpers/harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ worker: true, env: { SYSTEM_EMAIL_FROM: 'accounts@example.test' } });
});
afterAll(() => h?.stop());

/** The newest system email to `to`, once its row exists. */
const mailTo = (to: string, subject: RegExp) =>
  eventually(() =>
    h.deps.knex('emails').whereNull('project_id').where({ to_email: to }).where('subject', '~', subject.source).orderBy('created_at', 'desc').first(),
  );
const tokenIn = (email: { variables: { url: string } }) => new URL(email.variables.url).searchParams.get('token')!;

async function verificationToken(p: ProjectFixture): Promise<string> {
  const res = await h.http.post('/auth/request-verification').set('Cookie', p.cookie);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ success: true, alreadyVerified: false });
  return tokenIn(await mailTo(p.email, /Verify/));
}

describe('email verification', () => {
  it('mails a link from the system sender through the normal delivery path, and the token verifies the address once', async () => {
    const p = await createProjectFixture(h);
    const token = await verificationToken(p);
    const email = await mailTo(p.email, /Verify/);
    expect(email.from_email).toBe('accounts@example.test');
    expect(email.project_id).toBeNull();
    const sent = await eventually(async () => {
      const row = await h.deps.knex('emails').where({ id: email.id }).first();
      return row.status === 'SENT' ? row : null;
    });
    expect(sent.rendered_body).toContain(`verify-email?token=${token}`);

    const ok = await h.http.post('/auth/verify-email').send({ token });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ id: p.userId, email: p.email, emailVerified: true });
    expect((await h.http.get('/users/@me').set('Cookie', p.cookie)).body.emailVerified).toBe(true);

    const again = await h.http.post('/auth/verify-email').send({ token });
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('INVALID_TOKEN');
    const nothingToDo = await h.http.post('/auth/request-verification').set('Cookie', p.cookie);
    expect(nothingToDo.body).toMatchObject({ success: true, alreadyVerified: true });
  });

  it('stores only a hash of the token', async () => {
    const p = await createProjectFixture(h);
    const token = await verificationToken(p);
    const rows = await h.deps.knex('user_tokens').where({ user_id: p.userId });
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows[0].token_hash).toBe(crypto.createHash('sha256').update(token).digest('hex'));
  });

  it('refuses an expired token, and a link superseded by a newer one', async () => {
    const p = await createProjectFixture(h);
    const first = await verificationToken(p);
    const second = await verificationToken(p);
    expect(second).not.toBe(first);
    expect((await h.http.post('/auth/verify-email').send({ token: first })).status).toBe(400);
    await h.deps
      .knex('user_tokens')
      .where({ user_id: p.userId })
      .update({ expires_at: h.deps.knex.raw("now() - interval '1 second'") });
    const expired = await h.http.post('/auth/verify-email').send({ token: second });
    expect(expired.status).toBe(400);
    expect(expired.body.error.code).toBe('INVALID_TOKEN');
    expect((await h.deps.knex('users').where({ id: p.userId }).first()).email_verified).toBe(false);
  });

  it('needs the session cookie, and sends at most five emails per hour', async () => {
    expect((await h.http.post('/auth/request-verification')).status).toBe(401);
    const p = await createProjectFixture(h);
    for (let i = 0; i < 5; i++) expect((await h.http.post('/auth/request-verification').set('Cookie', p.cookie)).status).toBe(200);
    const sixth = await h.http.post('/auth/request-verification').set('Cookie', p.cookie);
    expect(sixth.status).toBe(429);
    expect(sixth.headers['retry-after']).toBeDefined();
  });
});

describe('password reset', () => {
  it('answers the same for unknown and known addresses, and only the known one gets mail', async () => {
    const p = await createProjectFixture(h);
    const unknown = `nobody-${crypto.randomBytes(4).toString('hex')}@example.test`;
    const a = await h.http.post('/auth/request-password-reset').send({ email: unknown });
    const b = await h.http.post('/auth/request-password-reset').send({ email: p.email.toUpperCase() });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.body).toEqual(b.body);
    await mailTo(p.email, /Reset/);
    expect(await h.deps.knex('emails').where({ to_email: unknown })).toHaveLength(0);
  });

  it('sets a new password with a single-use token that also proves the address', async () => {
    const p = await createProjectFixture(h);
    await h.http.post('/auth/request-password-reset').send({ email: p.email });
    const token = tokenIn(await mailTo(p.email, /Reset/));

    // A reset token is not a verification token.
    expect((await h.http.post('/auth/verify-email').send({ token })).status).toBe(400);

    const res = await h.http.post('/auth/reset-password').send({ token, password: 'a brand new password' });
    expect(res.status).toBe(200);
    expect((await h.http.post('/auth/login').send({ email: p.email, password: 'correct horse battery' })).status).toBe(401);
    expect((await h.http.post('/auth/login').send({ email: p.email, password: 'a brand new password' })).status).toBe(200);
    expect((await h.deps.knex('users').where({ id: p.userId }).first()).email_verified).toBe(true);

    const reuse = await h.http.post('/auth/reset-password').send({ token, password: 'yet another password' });
    expect(reuse.status).toBe(400);
    expect(reuse.body.error.code).toBe('INVALID_TOKEN');
  });

  it('refuses an expired reset token', async () => {
    const p = await createProjectFixture(h);
    await h.http.post('/auth/request-password-reset').send({ email: p.email });
    const token = tokenIn(await mailTo(p.email, /Reset/));
    await h.deps
      .knex('user_tokens')
      .where({ user_id: p.userId })
      .update({ expires_at: h.deps.knex.raw("now() - interval '1 second'") });
    expect((await h.http.post('/auth/reset-password').send({ token, password: 'a brand new password' })).status).toBe(400);
    expect((await h.http.post('/auth/login').send({ email: p.email, password: 'correct horse battery' })).status).toBe(200);
  });
});

describe('password reset ends sessions', () => {
  const cookieOf = (res: { headers: Record<string, any> }) => (res.headers['set-cookie'] as string[])[0].split(';')[0];

  it('a reset ends every earlier session of the account', async () => {
    const p = await createProjectFixture(h);
    const phone = cookieOf(await h.http.post('/auth/login').send({ email: p.email, password: 'correct horse battery' }));
    expect((await h.http.get('/users/@me').set('Cookie', phone)).status).toBe(200);
    await h.http.post('/auth/request-password-reset').send({ email: p.email });
    const token = tokenIn(await mailTo(p.email, /Reset/));
    expect((await h.http.post('/auth/reset-password').send({ token, password: 'a brand new password' })).status).toBe(200);
    for (const stale of [p.cookie, phone]) {
      const res = await h.http.get('/users/@me').set('Cookie', stale);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHORIZED');
    }
    const fresh = await h.http.post('/auth/login').send({ email: p.email, password: 'a brand new password' });
    expect((await h.http.get('/users/@me').set('Cookie', cookieOf(fresh))).status).toBe(200);
  });

  it("claiming an unverified account through the emailed reset link kills the squatter's session", async () => {
    const victim = `victim-${crypto.randomBytes(4).toString('hex')}@example.test`;
    // The attacker signs up first with the victim's address (never verified) and keeps the cookie.
    const squat = await h.http.post('/auth/signup').send({ email: victim, password: 'attacker password' });
    expect(squat.status).toBe(201);
    const attacker = cookieOf(squat);
    expect((await h.http.get('/users/@me').set('Cookie', attacker)).body).toMatchObject({ email: victim, emailVerified: false });

    // The real owner asks for a reset and follows the link in their inbox (the dashboard's screen posts the token).
    await h.http.post('/auth/request-password-reset').send({ email: victim });
    const link = new URL((await mailTo(victim, /Reset/)).variables.url);
    const done = await h.http.post('/auth/reset-password').send({ token: link.searchParams.get('token')!, password: 'the owner password' });
    expect(done.status).toBe(200);

    const res = await h.http.get('/users/@me').set('Cookie', attacker);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
    expect((await h.http.post('/users/@me/projects').set('Cookie', attacker).send({ name: 'still mine?' })).status).toBe(401);
    expect((await h.http.post('/auth/login').send({ email: victim, password: 'attacker password' })).status).toBe(401);
    const owner = await h.http.post('/auth/login').send({ email: victim, password: 'the owner password' });
    expect((await h.http.get('/users/@me').set('Cookie', cookieOf(owner))).body).toMatchObject({ email: victim, emailVerified: true });
  });

  it("a reset forgets the account's failed sign-ins, so a locked owner gets back in", async () => {
    const p = await createProjectFixture(h);
    for (let i = 0; i < 5; i++) expect((await h.http.post('/auth/login').send({ email: p.email, password: `guess ${i}` })).status).toBe(401);
    expect((await h.http.post('/auth/login').send({ email: p.email, password: 'correct horse battery' })).status).toBe(429);
    await h.http.post('/auth/request-password-reset').send({ email: p.email });
    const token = tokenIn(await mailTo(p.email, /Reset/));
    expect((await h.http.post('/auth/reset-password').send({ token, password: 'a brand new password' })).status).toBe(200);
    expect((await h.http.post('/auth/login').send({ email: p.email, password: 'a brand new password' })).status).toBe(200);
  });
});

describe('sign-in limits on the account pages', () => {
  it('answers the signup and reset forms with a 429 page and Retry-After beyond the per-address limit', async () => {
    const limited = await startHarness({ env: { AUTH_RATE_LIMIT_PER_MINUTE: '2' } });
    try {
      const ip = `10.9.${crypto.randomInt(256)}.${crypto.randomInt(1, 255)}`;
      const email = `page-${crypto.randomBytes(4).toString('hex')}@example.test`;
      const form = (path: string, body: Record<string, string>) => limited.http.post(path).set('X-Forwarded-For', ip).type('form').send(body);
      expect((await form('/reset-password', { token: 'abc', password: 'long enough password' })).status).toBe(400);
      expect((await form('/signup', { email, password: 'long enough password' })).status).toBe(201);
      for (const res of [
        await form('/signup', { email: `x${email}`, password: 'long enough password' }),
        await form('/reset-password', { token: 'abc', password: 'long enough password' }),
      ]) {
        expect(res.status).toBe(429);
        expect(res.type).toBe('text/html');
        expect(res.text).toContain('Too many attempts');
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      }
      expect(
        await limited.deps
          .knex('users')
          .where({ email: `x${email}` })
          .first(),
      ).toBeUndefined();
    } finally {
      await limited.stop();
    }
  });
});

describe('malformed input', () => {
  it.each([
    ['/auth/verify-email', {}],
    ['/auth/verify-email', { token: 'not a token!' }],
    ['/auth/verify-email', { token: 'x'.repeat(500) }],
    ['/auth/request-password-reset', { email: 'not-an-email' }],
    ['/auth/reset-password', { token: 'abc' }],
    ['/auth/reset-password', { token: 'abc', password: 'short' }],
    ['/auth/reset-password', { token: 123, password: ['x'] }],
  ])('POST %s %j → 422', async (path, body) => {
    const res = await h.http.post(path).send(body);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('answers 400 for malformed JSON', async () => {
    const res = await h.http.post('/auth/reset-password').set('Content-Type', 'application/json').send('{"token":');
    expect(res.status).toBe(400);
  });
});

describe('GET /auth/oauth-config', () => {
  it('lists no providers when none is configured', async () => {
    expect((await h.http.get('/auth/oauth-config')).body).toEqual({ providers: [] });
  });

  it('lists a provider once both its client id and secret are set, never the secret', async () => {
    const oauth = await startHarness({
      env: { OAUTH_GITHUB_CLIENT_ID: 'gh-client', OAUTH_GITHUB_CLIENT_SECRET: 'gh-secret', OAUTH_GOOGLE_CLIENT_ID: 'half-configured' },
    });
    try {
      const res = await oauth.http.get('/auth/oauth-config');
      expect(res.body).toEqual({ providers: [{ id: 'github', clientId: 'gh-client' }] });
      expect(res.text).not.toContain('gh-secret');
      expect((await oauth.http.get('/config')).body.oauth).toEqual({ providers: ['github'] });
    } finally {
      await oauth.stop();
    }
  });
});
