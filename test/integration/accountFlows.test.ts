import crypto from 'node:crypto';
import { startHarness, createProjectFixture, eventually, Harness } from '../helpers/harness';
import { signJwt } from '../../lib/jwt';

/**
 * The account flows of the dashboard (docs/dashboard.md "Your account"): a reset signs in and ends
 * every other session; invite acceptance proves the address; email changes wait for the new
 * address's link; password changes and per-session sign-out end exactly the other sessions.
 * Mails are read from their rows (system emails have no project).
 */

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.stop());

const PASSWORD = 'correct horse battery';
const fresh = (tag: string) => `${tag}-${crypto.randomBytes(5).toString('hex')}@example.test`;
const cookieOf = (res: { headers: Record<string, any> }) => (res.headers['set-cookie'] as string[])[0].split(';')[0];
/** The newest system email to `to` whose subject matches. */
const mailTo = (to: string, subject: RegExp) =>
  eventually(() =>
    h.deps.knex('emails').whereNull('project_id').where({ to_email: to }).where('subject', '~', subject.source).orderBy('created_at', 'desc').first(),
  );
const linkIn = (mail: { variables: { url: string } }) => new URL(mail.variables.url);
const me = (cookie: string) => h.http.get('/users/@me').set('Cookie', cookie);
const login = async (email: string, password = PASSWORD) => {
  const res = await h.http.post('/auth/login').send({ email, password });
  expect(res.status).toBe(200);
  return cookieOf(res);
};

describe('password reset from the emailed link', () => {
  it('signs the person in on this browser and ends every other session', async () => {
    const p = await createProjectFixture(h);
    const phone = await login(p.email);
    await h.http.post('/auth/request-password-reset').send({ email: p.email });
    const link = linkIn(await mailTo(p.email, /Reset/));
    // The link opens the dashboard's screen.
    expect(`${link.origin}${link.pathname}`).toBe(`${h.config.appUrl}/app/reset-password`);
    const token = link.searchParams.get('token')!;

    const res = await h.http.post('/auth/reset-password').send({ token, password: 'a brand new password' });
    expect(res.status).toBe(200);
    const signedIn = cookieOf(res);
    expect((await me(signedIn)).body).toMatchObject({ id: p.userId, email: p.email, emailVerified: true });
    for (const stale of [p.cookie, phone]) expect((await me(stale)).status).toBe(401);
    const sessions = await h.http.get('/users/@me/sessions').set('Cookie', signedIn);
    expect(sessions.body).toEqual([expect.objectContaining({ current: true })]);

    // Used: the same link again is refused, and nobody is signed in by it.
    const again = await h.http.post('/auth/reset-password').send({ token, password: 'yet another password' });
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('INVALID_TOKEN');
    expect(again.headers['set-cookie']).toBeUndefined();
  });

  it('refuses an expired link without signing in', async () => {
    const p = await createProjectFixture(h);
    await h.http.post('/auth/request-password-reset').send({ email: p.email });
    const token = linkIn(await mailTo(p.email, /Reset/)).searchParams.get('token')!;
    await h.deps
      .knex('user_tokens')
      .where({ user_id: p.userId })
      .update({ expires_at: h.deps.knex.raw("now() - interval '1 second'") });
    const res = await h.http.post('/auth/reset-password').send({ token, password: 'a brand new password' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_TOKEN');
    expect(res.headers['set-cookie']).toBeUndefined();
    expect((await me(p.cookie)).status).toBe(200);
  });

  it('refuses a reset posted from another site (it would sign the visitor in)', async () => {
    const res = await h.http.post('/auth/reset-password').set('Origin', 'https://evil.example').send({ token: 'abc', password: 'a brand new password' });
    expect(res.status).toBe(403);
  });
});

describe('email verification', () => {
  it('mails a link to the dashboard screen, whose token verifies the address', async () => {
    const p = await createProjectFixture(h);
    expect((await me(p.cookie)).body.emailVerified).toBe(false);
    expect((await h.http.post('/auth/request-verification').set('Cookie', p.cookie)).status).toBe(200);
    const link = linkIn(await mailTo(p.email, /Verify/));
    expect(`${link.origin}${link.pathname}`).toBe(`${h.config.appUrl}/app/verify-email`);
    expect((await h.http.post('/auth/verify-email').send({ token: link.searchParams.get('token') })).status).toBe(200);
    expect((await me(p.cookie)).body.emailVerified).toBe(true);
  });
});

describe('invite acceptance proves the address', () => {
  it('verifies the unverified account of the invited address that accepts with the emailed token, and no other', async () => {
    const owner = await createProjectFixture(h, 'team');
    const address = fresh('invitee');
    expect((await h.http.post(`/projects/${owner.projectId}/members`).set('Cookie', owner.cookie).send({ email: address, role: 'ADMIN' })).status).toBe(202);
    const link = linkIn(await mailTo(address, /You are invited/));
    expect(`${link.origin}${link.pathname}`).toBe(`${h.config.appUrl}/app/invite`);
    const token = link.searchParams.get('token')!;

    // Someone else holding the forwarded link gets nothing, and their own address stays unproven.
    const colleague = await h.http.post('/auth/signup').send({ email: fresh('colleague'), password: PASSWORD });
    const forwarded = await h.http.post('/auth/invites/accept').set('Cookie', cookieOf(colleague)).send({ token });
    expect(forwarded.status).toBe(403);
    expect((await me(cookieOf(colleague))).body.emailVerified).toBe(false);

    // The invitee signs up with the invited address (no verification email asked for) and accepts.
    const signup = await h.http.post('/auth/signup').send({ email: address, password: PASSWORD });
    const invitee = cookieOf(signup);
    expect((await me(invitee)).body.emailVerified).toBe(false);
    const accepted = await h.http.post('/auth/invites/accept').set('Cookie', invitee).send({ token });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({ projectId: owner.projectId, role: 'ADMIN' });
    expect((await me(invitee)).body.emailVerified).toBe(true);
    expect((await h.http.get(`/projects/${owner.projectId}/members`).set('Cookie', invitee)).status).toBe(200);
    expect(await h.deps.knex('emails').whereNull('project_id').where({ to_email: address }).where('subject', 'like', 'Verify%')).toHaveLength(0);
  });
});

describe('email change', () => {
  it('applies only when the link mailed to the new address is opened, and tells the old address', async () => {
    const p = await createProjectFixture(h);
    const other = await createProjectFixture(h);
    const next = fresh('moved');
    const change = (body: object) => h.http.post('/users/@me/email').set('Cookie', p.cookie).send(body);

    const wrong = await change({ email: next, password: 'not my password' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.errors[0].field).toBe('password');
    expect((await change({ email: other.email, password: PASSWORD })).status).toBe(409);
    expect((await change({ email: p.email.toUpperCase(), password: PASSWORD })).status).toBe(409);

    const asked = await change({ email: next, password: PASSWORD });
    expect(asked.status).toBe(202);
    const link = linkIn(await mailTo(next, /Confirm your new email/));
    expect(`${link.origin}${link.pathname}`).toBe(`${h.config.appUrl}/app/confirm-email`);
    // Nothing changed yet: the old address still signs in, the new one does not.
    expect((await me(p.cookie)).body.email).toBe(p.email);
    expect((await h.http.post('/auth/login').send({ email: next, password: PASSWORD })).status).toBe(401);
    expect(await h.deps.knex('emails').whereNull('project_id').where({ to_email: p.email }).where('subject', 'like', 'Your email address%')).toHaveLength(0);

    const token = link.searchParams.get('token')!;
    const confirmed = await h.http.post('/auth/confirm-email-change').send({ token });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toEqual({ id: p.userId, email: next, emailVerified: true });
    expect((await me(p.cookie)).body).toMatchObject({ email: next, emailVerified: true });
    const notice = await mailTo(p.email, /Your email address was changed/);
    expect(notice.variables).toMatchObject({ old: p.email, new: next });
    await login(next);
    expect((await h.http.post('/auth/login').send({ email: p.email, password: PASSWORD })).status).toBe(401);

    const again = await h.http.post('/auth/confirm-email-change').send({ token });
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('INVALID_TOKEN');
  });

  it('refuses the link when another account took the address meanwhile', async () => {
    const p = await createProjectFixture(h);
    const next = fresh('contested');
    expect((await h.http.post('/users/@me/email').set('Cookie', p.cookie).send({ email: next, password: PASSWORD })).status).toBe(202);
    const token = linkIn(await mailTo(next, /Confirm your new email/)).searchParams.get('token')!;
    expect((await h.http.post('/auth/signup').send({ email: next, password: PASSWORD })).status).toBe(201);
    expect((await h.http.post('/auth/confirm-email-change').send({ token })).status).toBe(409);
    expect((await me(p.cookie)).body.email).toBe(p.email);
  });
});

describe('password change', () => {
  it('needs the current password, keeps this session and ends every other one', async () => {
    const p = await createProjectFixture(h);
    const laptop = await login(p.email);
    const change = (body: object) => h.http.post('/users/@me/password').set('Cookie', p.cookie).send(body);

    const wrong = await change({ currentPassword: 'not my password', newPassword: 'a brand new password' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.errors[0].field).toBe('currentPassword');
    expect((await change({ newPassword: 'a brand new password' })).status).toBe(422);
    expect((await change({ currentPassword: PASSWORD, newPassword: 'short' })).status).toBe(422);
    expect((await me(laptop)).status).toBe(200);

    const ok = await change({ currentPassword: PASSWORD, newPassword: 'a brand new password' });
    expect(ok.status).toBe(200);
    expect((await me(p.cookie)).status).toBe(200);
    expect((await me(laptop)).status).toBe(401);
    expect((await h.http.post('/auth/login').send({ email: p.email, password: PASSWORD })).status).toBe(401);
    await login(p.email, 'a brand new password');
  });

  it('is refused from another site', async () => {
    const p = await createProjectFixture(h);
    const res = await h.http
      .post('/users/@me/password')
      .set('Cookie', p.cookie)
      .set('Origin', 'https://evil.example')
      .send({ currentPassword: PASSWORD, newPassword: 'a brand new password' });
    expect(res.status).toBe(403);
  });
});

describe('sessions', () => {
  it('lists the live sessions with device and address, and "Sign out" ends exactly that cookie', async () => {
    const p = await createProjectFixture(h);
    const phoneRes = await h.http.post('/auth/login').set('User-Agent', 'PhoneBrowser/1.0').send({ email: p.email, password: PASSWORD });
    const phone = cookieOf(phoneRes);
    const tablet = await login(p.email);

    const list = await h.http.get('/users/@me/sessions').set('Cookie', p.cookie);
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(3);
    expect(list.body.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
    const phoneSession = list.body.find((s: { userAgent: string | null }) => s.userAgent === 'PhoneBrowser/1.0');
    expect(phoneSession).toMatchObject({ current: false, ip: expect.any(String), createdAt: expect.any(String), lastSeenAt: expect.any(String) });

    expect((await h.http.delete(`/users/@me/sessions/${phoneSession.id}`).set('Cookie', p.cookie)).status).toBe(204);
    expect((await me(phone)).status).toBe(401);
    expect((await me(tablet)).status).toBe(200);
    expect((await me(p.cookie)).status).toBe(200);
    expect((await h.http.get('/users/@me/sessions').set('Cookie', p.cookie)).body).toHaveLength(2);
    expect((await h.http.delete(`/users/@me/sessions/${phoneSession.id}`).set('Cookie', p.cookie)).status).toBe(404);

    // Another user's session is not found, and stays.
    const stranger = await createProjectFixture(h);
    const [theirs] = (await h.http.get('/users/@me/sessions').set('Cookie', stranger.cookie)).body;
    expect((await h.http.delete(`/users/@me/sessions/${theirs.id}`).set('Cookie', p.cookie)).status).toBe(404);
    expect((await me(stranger.cookie)).status).toBe(200);
    expect((await h.http.delete('/users/@me/sessions/not-a-uuid').set('Cookie', p.cookie)).status).toBe(404);

    // Signing out the current session clears its cookie too.
    const current = (await h.http.get('/users/@me/sessions').set('Cookie', tablet)).body.find((s: { current: boolean }) => s.current);
    const self = await h.http.delete(`/users/@me/sessions/${current.id}`).set('Cookie', tablet);
    expect(self.status).toBe(204);
    expect(self.headers['set-cookie'][0]).toMatch(/^token=;/);
    expect((await me(tablet)).status).toBe(401);
  });

  it('POST /auth/logout ends the session on the server, so a copy of the cookie is dead too', async () => {
    const p = await createProjectFixture(h);
    expect((await h.http.post('/auth/logout').set('Cookie', p.cookie)).status).toBe(204);
    expect((await me(p.cookie)).status).toBe(401);
  });

  it('"Sign out everywhere" (POST /auth/logout-all) ends every session, and they leave the list', async () => {
    const p = await createProjectFixture(h);
    const other = await login(p.email);
    expect((await h.http.post('/auth/logout-all').set('Cookie', p.cookie)).status).toBe(204);
    for (const c of [p.cookie, other]) expect((await me(c)).status).toBe(401);
    const again = await login(p.email);
    expect((await h.http.get('/users/@me/sessions').set('Cookie', again)).body).toHaveLength(1);
  });

  it('refuses a cookie without a session row (issued before sessions were listed)', async () => {
    const p = await createProjectFixture(h);
    const legacy = signJwt({ sub: p.userId, sv: 0 }, h.config.jwtSecret, 3600);
    expect((await me(`token=${legacy}`)).status).toBe(401);
  });

  it('forgets the rows of expired sessions (device and address) when the user signs in again', async () => {
    const p = await createProjectFixture(h);
    const [s] = (await h.http.get('/users/@me/sessions').set('Cookie', p.cookie)).body;
    await h.deps
      .knex('user_sessions')
      .where({ id: s.id })
      .update({ created_at: h.deps.knex.raw("now() - interval '8 days'") });
    expect((await h.http.get('/users/@me/sessions').set('Cookie', p.cookie)).status).toBe(200);
    await login(p.email);
    expect(await h.deps.knex('user_sessions').where({ id: s.id }).first()).toBeUndefined();
    expect(await h.deps.knex('user_sessions').where({ user_id: p.userId })).toHaveLength(1);
  });

  it('moves last seen at most once a minute', async () => {
    const p = await createProjectFixture(h);
    const [s] = (await h.http.get('/users/@me/sessions').set('Cookie', p.cookie)).body;
    const row = () => h.deps.knex('user_sessions').where({ id: s.id }).first();
    await h.deps
      .knex('user_sessions')
      .where({ id: s.id })
      .update({ last_seen_at: h.deps.knex.raw("now() - interval '30 seconds'") });
    const recent = (await row()).last_seen_at.getTime();
    await me(p.cookie);
    expect((await row()).last_seen_at.getTime()).toBe(recent);
    await h.deps
      .knex('user_sessions')
      .where({ id: s.id })
      .update({ last_seen_at: h.deps.knex.raw("now() - interval '2 minutes'") });
    const old = (await row()).last_seen_at.getTime();
    await me(p.cookie);
    expect((await row()).last_seen_at.getTime()).toBeGreaterThan(old + 60_000);
  });
});

describe('name', () => {
  it('is set, shown and cleared', async () => {
    const p = await createProjectFixture(h);
    expect((await me(p.cookie)).body.name).toBeNull();
    const set = await h.http.patch('/users/@me').set('Cookie', p.cookie).send({ name: '  Ada Lovelace ' });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ id: p.userId, name: 'Ada Lovelace' });
    expect((await me(p.cookie)).body.name).toBe('Ada Lovelace');
    expect(
      (
        await h.http
          .patch('/users/@me')
          .set('Cookie', p.cookie)
          .send({ name: 'x'.repeat(101) })
      ).status,
    ).toBe(422);
    expect((await h.http.patch('/users/@me').set('Cookie', p.cookie).send({ name: '' })).body.name).toBeNull();
  });
});

describe('dashboard language', () => {
  it('follows the browser (null) until set; is en, fr or de only; leaves the name alone; null follows the browser again', async () => {
    const p = await createProjectFixture(h);
    await h.http.patch('/users/@me').set('Cookie', p.cookie).send({ name: 'Ada' });
    expect((await me(p.cookie)).body.locale).toBeNull();
    const set = await h.http.patch('/users/@me').set('Cookie', p.cookie).send({ locale: 'fr' });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ name: 'Ada', locale: 'fr' });
    expect((await me(p.cookie)).body).toMatchObject({ name: 'Ada', locale: 'fr' });
    const other = await h.http.patch('/users/@me').set('Cookie', p.cookie).send({ locale: 'es' });
    expect(other.status).toBe(422);
    expect(other.body.error.errors.map((d: { field: string }) => d.field)).toContain('locale');
    expect((await h.http.patch('/users/@me').set('Cookie', p.cookie).send({})).status).toBe(422);
    expect((await me(p.cookie)).body.locale).toBe('fr');
    expect((await h.http.patch('/users/@me').set('Cookie', p.cookie).send({ locale: null })).body).toMatchObject({ name: 'Ada', locale: null });
  });
});
