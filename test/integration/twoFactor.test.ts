import crypto from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { bearer, createProjectFixture, eventually, Harness, ProjectFixture, startHarness } from '../helpers/harness';
import { clearAccountFailures, reserveAccountAttempt } from '../../db/authThrottle';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.stop());

const PASSWORD = 'correct horse battery';
type Account = { userId: string; email: string; cookie: string };

const cookieNamed = (res: { headers: Record<string, any> }, name: string) =>
  ((res.headers['set-cookie'] as string[] | undefined) ?? []).map((c) => c.split(';')[0]).find((c) => c.startsWith(`${name}=`) && c.length > name.length + 1);

/** The code of the authenticator app `steps` time steps from now (30 s each). */
const codeAt = (secret: string, steps = 0) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + steps * 30_000 });

/**
 * Each step's code is accepted once and only a later step after it, so a test that signs in again
 * within the same 30 seconds stands in for the clock moving on by forgetting the last used step.
 */
const clockMovesOn = (userId: string) => h.deps.knex('user_two_factor').where({ user_id: userId }).update({ last_step: null });

async function signup(): Promise<Account> {
  const email = `tf-${crypto.randomBytes(5).toString('hex')}@example.test`;
  const res = await h.http.post('/auth/signup').send({ email, password: PASSWORD });
  expect(res.status).toBe(201);
  await h.deps.knex('users').where({ id: res.body.id }).update({ email_verified: true });
  return { userId: res.body.id, email, cookie: cookieNamed(res, 'token')! };
}

/** Enrols `a` through the routes; answers the secret, the first code and the recovery codes. */
async function enrol(a: { cookie: string }): Promise<{ secret: string; firstCode: string; recoveryCodes: string[] }> {
  const setup = await h.http.post('/users/@me/two-factor/setup').set('Cookie', a.cookie);
  expect(setup.status).toBe(200);
  const firstCode = codeAt(setup.body.secret);
  const enabled = await h.http.post('/users/@me/two-factor/enable').set('Cookie', a.cookie).send({ code: firstCode });
  expect(enabled.status).toBe(200);
  return { secret: setup.body.secret, firstCode, recoveryCodes: enabled.body.recoveryCodes };
}

/** The password step: answers the ticket cookie. */
async function passwordStep(email: string): Promise<string> {
  const res = await h.http.post('/auth/login').send({ email, password: PASSWORD });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ twoFactorRequired: true });
  expect(cookieNamed(res, 'token')).toBeUndefined();
  return cookieNamed(res, 'two_factor')!;
}

const secondStep = (ticket: string | undefined, body: object) => {
  const req = h.http.post('/auth/login/two-factor');
  if (ticket) req.set('Cookie', ticket);
  return req.send(body);
};

describe('enrolment', () => {
  it('shows a secret and its QR code, refuses a wrong first code, then turns 2FA on with 10 recovery codes stored hashed', async () => {
    const a = await signup();
    expect((await h.http.get('/users/@me/two-factor').set('Cookie', a.cookie)).body).toEqual({ enabled: false, enabledAt: null, recoveryCodesLeft: 0 });
    const setup = await h.http.post('/users/@me/two-factor/setup').set('Cookie', a.cookie);
    expect(setup.status).toBe(200);
    expect(setup.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(setup.body.otpauthUrl).toMatch(/^otpauth:\/\/totp\//);
    expect(setup.body.otpauthUrl).toContain(`secret=${setup.body.secret}`);
    expect(setup.body.qrCode).toMatch(/^data:image\/png;base64,/);
    // Sealed at rest with ENCRYPTION_KEY.
    const row = await h.deps.knex('user_two_factor').where({ user_id: a.userId }).first();
    expect(row.secret).toMatch(/^v1\./);
    expect(row.secret).not.toContain(setup.body.secret);

    const wrongCode = String((Number(codeAt(setup.body.secret)) + 1) % 1_000_000).padStart(6, '0');
    const wrong = await h.http.post('/users/@me/two-factor/enable').set('Cookie', a.cookie).send({ code: wrongCode });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.errors[0]).toMatchObject({ field: 'code' });
    expect((await h.http.get('/users/@me/two-factor').set('Cookie', a.cookie)).body.enabled).toBe(false);
    // Before the first code, the password alone still signs in.
    const plain = await h.http.post('/auth/login').send({ email: a.email, password: PASSWORD });
    expect(plain.body).toEqual({ id: a.userId, email: a.email });

    const ok = await h.http
      .post('/users/@me/two-factor/enable')
      .set('Cookie', a.cookie)
      .send({ code: codeAt(setup.body.secret) });
    expect(ok.status).toBe(200);
    expect(ok.body.recoveryCodes).toHaveLength(10);
    expect(new Set(ok.body.recoveryCodes).size).toBe(10);
    const status = await h.http.get('/users/@me/two-factor').set('Cookie', a.cookie);
    expect(status.body).toMatchObject({ enabled: true, enabledAt: expect.any(String), recoveryCodesLeft: 10 });
    const stored = await h.deps.knex('user_recovery_codes').where({ user_id: a.userId });
    expect(stored).toHaveLength(10);
    for (const code of ok.body.recoveryCodes) expect(JSON.stringify(stored)).not.toContain(code.replace(/-/g, ''));

    // An enabled secret is not replaced by a new setup (disabling needs a code).
    expect((await h.http.post('/users/@me/two-factor/setup').set('Cookie', a.cookie)).status).toBe(409);
  });
});

describe('signing in with a second factor', () => {
  it('asks for the code after the password: no session until it comes, a wrong code is 401, the right one signs in', async () => {
    const a = await signup();
    const { secret, firstCode } = await enrol(a);
    const ticket = await passwordStep(a.email);
    // The ticket is not a session, under either cookie name.
    expect((await h.http.get('/users/@me').set('Cookie', ticket)).status).toBe(401);
    expect((await h.http.get('/users/@me').set('Cookie', ticket.replace(/^two_factor=/, 'token='))).status).toBe(401);

    const wrongCode = String((Number(codeAt(secret, 1)) + 1) % 1_000_000).padStart(6, '0');
    const wrong = await secondStep(ticket, { code: wrongCode });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('UNAUTHORIZED');
    expect(cookieNamed(wrong, 'token')).toBeUndefined();
    expect((await secondStep(undefined, { code: codeAt(secret, 1) })).status).toBe(401);
    // Nor is a session cookie a ticket.
    expect((await secondStep(a.cookie.replace(/^token=/, 'two_factor='), { code: codeAt(secret, 1) })).status).toBe(401);
    // The code that confirmed the enrolment was spent there.
    expect((await secondStep(ticket, { code: firstCode })).status).toBe(401);

    // The enrolment used this step's code; the next step's is within the accepted window.
    const ok = await secondStep(ticket, { code: codeAt(secret, 1) });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ id: a.userId, email: a.email });
    const session = cookieNamed(ok, 'token')!;
    expect((await h.http.get('/users/@me').set('Cookie', session)).body.id).toBe(a.userId);
  });

  it('accepts the current and adjacent time steps only', async () => {
    const a = await signup();
    const { secret } = await enrol(a);
    const ticket = await passwordStep(a.email);
    // Three steps away stays outside the window even if the clock turns over during the request.
    expect((await secondStep(ticket, { code: codeAt(secret, 3) })).status).toBe(401);
    expect((await secondStep(ticket, { code: codeAt(secret, -3) })).status).toBe(401);
    await clockMovesOn(a.userId);
    expect((await secondStep(ticket, { code: codeAt(secret, -1) })).status).toBe(200);
    await clockMovesOn(a.userId);
    expect((await secondStep(await passwordStep(a.email), { code: codeAt(secret, 0) })).status).toBe(200);
  });

  it('never accepts the same code twice, nor an earlier step after a later one', async () => {
    const a = await signup();
    const { secret } = await enrol(a);
    const code = codeAt(secret, 1);
    expect((await secondStep(await passwordStep(a.email), { code })).status).toBe(200);
    const replay = await secondStep(await passwordStep(a.email), { code });
    expect(replay.status).toBe(401);
    expect(cookieNamed(replay, 'token')).toBeUndefined();
    // Step 0 is still in the window, but older than the step just used.
    expect((await secondStep(await passwordStep(a.email), { code: codeAt(secret, 0) })).status).toBe(401);
    // Two requests racing with one fresh code: one wins.
    await clockMovesOn(a.userId);
    const ticket = await passwordStep(a.email);
    const raced = await Promise.all([secondStep(ticket, { code }), secondStep(ticket, { code })]);
    expect(raced.map((r) => r.status).sort()).toEqual([200, 401]);
  });

  it('takes a recovery code once, typed in any case and with or without dashes', async () => {
    const a = await signup();
    const { recoveryCodes } = await enrol(a);
    const typed = recoveryCodes[0].replace(/-/g, '').toUpperCase();
    const ok = await secondStep(await passwordStep(a.email), { recoveryCode: typed });
    expect(ok.status).toBe(200);
    expect(cookieNamed(ok, 'token')).toBeDefined();
    const again = await secondStep(await passwordStep(a.email), { recoveryCode: recoveryCodes[0] });
    expect(again.status).toBe(401);
    expect((await secondStep(await passwordStep(a.email), { recoveryCode: 'aaaa-bbbb-cccc-dddd' })).status).toBe(401);
    expect((await h.http.get('/users/@me/two-factor').set('Cookie', cookieNamed(ok, 'token')!)).body.recoveryCodesLeft).toBe(9);
    // Someone else's code is not this account's.
    const b = await signup();
    const other = await enrol(b);
    expect((await secondStep(await passwordStep(a.email), { recoveryCode: other.recoveryCodes[0] })).status).toBe(401);
  });

  it('voids the ticket when every session of the account ends (password reset, sign out everywhere)', async () => {
    const a = await signup();
    const { secret } = await enrol(a);
    const ticket = await passwordStep(a.email);
    expect((await h.http.post('/auth/logout-all').set('Cookie', a.cookie)).status).toBe(204);
    expect((await secondStep(ticket, { code: codeAt(secret, 1) })).status).toBe(401);
    expect((await secondStep(await passwordStep(a.email), { code: codeAt(secret, 1) })).status).toBe(200);
  });

  it('counts the second step against the per-address sign-in limit', async () => {
    const limited = await startHarness({ env: { AUTH_RATE_LIMIT_PER_MINUTE: '3' } });
    try {
      const ip = `10.${crypto.randomInt(256)}.${crypto.randomInt(256)}.${crypto.randomInt(1, 255)}`;
      const a = await signup();
      const { secret } = await enrol(a);
      const login = await limited.http.post('/auth/login').set('X-Forwarded-For', ip).send({ email: a.email, password: PASSWORD });
      const ticket = cookieNamed(login, 'two_factor')!;
      const step = () => limited.http.post('/auth/login/two-factor').set('X-Forwarded-For', ip).set('Cookie', ticket);
      expect((await step().send({ recoveryCode: 'aaaa-bbbb-cccc-dddd' })).status).toBe(401);
      expect((await step().send({ recoveryCode: 'aaaa-bbbb-cccc-dddd' })).status).toBe(401);
      const refused = await step().send({ code: codeAt(secret, 1) });
      expect(refused.status).toBe(429);
      expect(refused.headers['retry-after']).toBeDefined();
    } finally {
      await limited.stop();
    }
  });

  it('keeps counting while a success clears the count at the same moment (two requests racing with one code)', async () => {
    // Before, the reservation inserted-if-missing then selected the row: a clear in between left it
    // nothing to read, and the racing request answered 500.
    const errors: string[] = [];
    for (let i = 0; i < 100; i++) {
      const key = `race-${crypto.randomBytes(4).toString('hex')}`;
      await reserveAccountAttempt(h.deps.knex, key);
      const settled = await Promise.allSettled([reserveAccountAttempt(h.deps.knex, key), clearAccountFailures(h.deps.knex, key)]);
      for (const r of settled) if (r.status === 'rejected') errors.push(String(r.reason));
    }
    expect(errors).toEqual([]);
  });

  it('refuses a body with both or neither factor', async () => {
    const a = await signup();
    await enrol(a);
    const ticket = await passwordStep(a.email);
    expect((await secondStep(ticket, {})).status).toBe(422);
    expect((await secondStep(ticket, { code: '123456', recoveryCode: 'x' })).status).toBe(422);
  });

  it('locks the second factor after 5 wrong codes, and a correct password does not give fresh guesses', async () => {
    const a = await signup();
    const { secret } = await enrol(a);
    const wrongCode = String((Number(codeAt(secret, 1)) + 7) % 1_000_000).padStart(6, '0');
    let ticket = await passwordStep(a.email);
    for (let i = 0; i < 4; i++) expect((await secondStep(ticket, { code: wrongCode })).status).toBe(401);
    // The password is right again: its own count is cleared, the code's is not.
    ticket = await passwordStep(a.email);
    expect((await secondStep(ticket, { code: wrongCode })).status).toBe(401);
    const locked = await secondStep(ticket, { code: codeAt(secret, 1) });
    expect(locked.status).toBe(429);
    expect(locked.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    expect((await secondStep(ticket, { recoveryCode: 'aaaa-bbbb-cccc-dddd' })).status).toBe(429);
    // The lock runs out (moved into the past rather than waited for): the right code signs in and clears the count.
    await h.deps
      .knex('auth_throttle')
      .where({ scope: 'account', key: `second-factor:${a.userId}` })
      .update({ locked_until: h.deps.knex.raw("now() - interval '1 second'") });
    expect((await secondStep(ticket, { code: codeAt(secret, 1) })).status).toBe(200);
    expect(
      await h.deps
        .knex('auth_throttle')
        .where({ scope: 'account', key: `second-factor:${a.userId}` })
        .first(),
    ).toBeUndefined();
  });
});

describe('other ways in', () => {
  it('a password reset link does not skip the second factor: it leaves the ticket, and the code signs in', async () => {
    const a = await signup();
    const { secret } = await enrol(a);
    await clockMovesOn(a.userId);
    await h.http.post('/auth/request-password-reset').send({ email: a.email });
    const mail = await eventually(() =>
      h.deps.knex('emails').whereNull('project_id').where({ to_email: a.email }).where('subject', '~', 'Reset').orderBy('created_at', 'desc').first(),
    );
    const token = new URL(mail.variables.url).searchParams.get('token')!;
    const reset = await h.http.post('/auth/reset-password').send({ token, password: 'a brand new password' });
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({ success: true, twoFactorRequired: true });
    expect(cookieNamed(reset, 'token')).toBeUndefined();
    const ticket = cookieNamed(reset, 'two_factor');
    expect(ticket).toBeDefined();
    const signedIn = await secondStep(ticket, { code: codeAt(secret) });
    expect(signedIn.status).toBe(200);
    expect(cookieNamed(signedIn, 'token')).toBeDefined();
  });
});

describe('disabling and new recovery codes', () => {
  it('needs a current code: a wrong one is refused, then sign-in takes the password alone', async () => {
    const a = await signup();
    const { secret } = await enrol(a);
    const wrong = await h.http
      .post('/users/@me/two-factor/disable')
      .set('Cookie', a.cookie)
      .send({ code: '000000' === codeAt(secret, 1) ? '111111' : '000000' });
    expect(wrong.status).toBe(422);
    expect((await h.http.get('/users/@me/two-factor').set('Cookie', a.cookie)).body.enabled).toBe(true);
    const off = await h.http
      .post('/users/@me/two-factor/disable')
      .set('Cookie', a.cookie)
      .send({ code: codeAt(secret, 1) });
    expect(off.status).toBe(204);
    expect(await h.deps.knex('user_recovery_codes').where({ user_id: a.userId })).toHaveLength(0);
    const login = await h.http.post('/auth/login').send({ email: a.email, password: PASSWORD });
    expect(login.body).toEqual({ id: a.userId, email: a.email });
    expect(cookieNamed(login, 'token')).toBeDefined();
  });

  it('takes a recovery code instead of a code (a lost phone), once', async () => {
    const a = await signup();
    const { recoveryCodes } = await enrol(a);
    const off = await h.http.post('/users/@me/two-factor/disable').set('Cookie', a.cookie).send({ recoveryCode: recoveryCodes[2] });
    expect(off.status).toBe(204);
    expect((await h.http.get('/users/@me/two-factor').set('Cookie', a.cookie)).body.enabled).toBe(false);
    const wrong = await h.http.post('/users/@me/two-factor/disable').set('Cookie', a.cookie).send({ recoveryCode: recoveryCodes[3] });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.errors[0]).toMatchObject({ field: 'recoveryCode' });
  });

  it('replaces the recovery codes for a valid code; the old ones stop working', async () => {
    const a = await signup();
    const { secret, recoveryCodes } = await enrol(a);
    const res = await h.http
      .post('/users/@me/two-factor/recovery-codes')
      .set('Cookie', a.cookie)
      .send({ code: codeAt(secret, 1) });
    expect(res.status).toBe(200);
    expect(res.body.recoveryCodes).toHaveLength(10);
    expect((await secondStep(await passwordStep(a.email), { recoveryCode: recoveryCodes[1] })).status).toBe(401);
    expect((await secondStep(await passwordStep(a.email), { recoveryCode: res.body.recoveryCodes[1] })).status).toBe(200);
  });
});

describe('a project that requires two-factor authentication', () => {
  let owner: ProjectFixture;
  let admin: Account;
  let member: Account;

  beforeAll(async () => {
    owner = await createProjectFixture(h, 'requires 2FA');
    await h.deps.knex('users').where({ id: owner.userId }).update({ email_verified: true });
    admin = await signup();
    member = await signup();
    for (const [a, role] of [
      [admin, 'ADMIN'],
      [member, 'MEMBER'],
    ] as const) {
      expect((await h.http.post(`/projects/${owner.projectId}/members`).set('Cookie', owner.cookie).send({ email: a.email, role })).status).toBe(201);
    }
  });

  const setRule = (cookie: string, requireTwoFactor: boolean) =>
    h.http.patch(`/users/@me/projects/${owner.projectId}`).set('Cookie', cookie).send({ requireTwoFactor });

  it('is set by an owner only, who must have 2FA first; the change is audited', async () => {
    const first = await setRule(owner.cookie, true);
    expect(first.status).toBe(409);
    await enrol(owner);
    await enrol(admin);
    const byAdmin = await setRule(admin.cookie, true);
    expect(byAdmin.status).toBe(403);
    expect(byAdmin.body.error.code).toBe('FORBIDDEN');
    expect((await setRule(member.cookie, true)).status).toBe(403);
    // An admin may still rename the project.
    expect((await h.http.patch(`/users/@me/projects/${owner.projectId}`).set('Cookie', admin.cookie).send({ name: 'renamed' })).status).toBe(200);

    const ok = await setRule(owner.cookie, true);
    expect(ok.status).toBe(200);
    expect(ok.body.requireTwoFactor).toBe(true);
    const audit = await h.http.get(`/projects/${owner.projectId}/audit`).set('Cookie', owner.cookie).query({ action: 'project.require_two_factor' });
    expect(audit.status).toBe(200);
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0]).toMatchObject({ actor: owner.userId, action: 'project.require_two_factor', details: { requireTwoFactor: true } });
  });

  it('refuses the cookie of a member without 2FA with 403 TWO_FACTOR_REQUIRED, but not the API key; enrolling opens it', async () => {
    const projects = await h.http.get('/users/@me/projects').set('Cookie', member.cookie);
    expect(projects.body.find((p: any) => p.id === owner.projectId)).toMatchObject({ requireTwoFactor: true, role: 'MEMBER' });
    for (const res of [
      await h.http.get('/contacts').set('Cookie', member.cookie).set('X-Project-Id', owner.projectId),
      await h.http.get(`/projects/${owner.projectId}/members`).set('Cookie', member.cookie),
      await h.http.get(`/users/@me/projects/${owner.projectId}/billing-limits`).set('Cookie', member.cookie),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'TWO_FACTOR_REQUIRED', details: { setupUrl: '/app/account/two-factor' } });
    }
    // Members with 2FA and the key are not asked.
    expect((await h.http.get('/contacts').set('Cookie', admin.cookie).set('X-Project-Id', owner.projectId)).status).toBe(200);
    expect((await h.http.get('/contacts').set(bearer(owner.secretKey))).status).toBe(200);
    // Outsiders still learn nothing.
    const outsider = await signup();
    expect((await h.http.get('/contacts').set('Cookie', outsider.cookie).set('X-Project-Id', owner.projectId)).status).toBe(404);

    await enrol(member);
    expect((await h.http.get('/contacts').set('Cookie', member.cookie).set('X-Project-Id', owner.projectId)).status).toBe(200);
    expect((await h.http.get(`/projects/${owner.projectId}/members`).set('Cookie', member.cookie)).status).toBe(200);
  });

  it('lets a member without 2FA leave the project; lifting the rule opens it again', async () => {
    const leaver = await signup();
    const stayer = await signup();
    for (const a of [leaver, stayer]) {
      expect((await h.http.post(`/projects/${owner.projectId}/members`).set('Cookie', owner.cookie).send({ email: a.email, role: 'MEMBER' })).status).toBe(201);
    }
    expect((await h.http.delete(`/projects/${owner.projectId}/members/${leaver.userId}`).set('Cookie', leaver.cookie)).status).toBe(204);
    // ...but not remove anyone else.
    expect((await h.http.delete(`/projects/${owner.projectId}/members/${member.userId}`).set('Cookie', stayer.cookie)).body.error.code).toBe(
      'TWO_FACTOR_REQUIRED',
    );
    const off = await setRule(owner.cookie, false);
    expect(off.status).toBe(200);
    expect(off.body.requireTwoFactor).toBe(false);
    expect((await h.http.get('/contacts').set('Cookie', stayer.cookie).set('X-Project-Id', owner.projectId)).status).toBe(200);
  });
});
