import crypto from 'node:crypto';
import { startHarness, createProjectFixture, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { INVITE_LIMITS } from '../../db/members';

/**
 * Project invites (db/members.ts, api/routes/invites.ts, api/routes/projects.ts): accepted only with
 * the emailed token by the account of the invited address (which the token verifies); invitation emails bounded.
 */

let h: Harness;
let owner: ProjectFixture;
type Account = { userId: string; email: string; cookie: string };

beforeAll(async () => {
  h = await startHarness({ worker: true });
  owner = await createProjectFixture(h, 'invites');
});
afterAll(() => h?.stop());

const fresh = (tag = 'inv') => `${tag}-${crypto.randomBytes(5).toString('hex')}@example.test`;

async function signup(email: string, verified: boolean): Promise<Account> {
  const res = await h.http.post('/auth/signup').send({ email, password: 'correct horse battery' });
  expect(res.status).toBe(201);
  if (verified) await h.deps.knex('users').where({ id: res.body.id }).update({ email_verified: true });
  return { userId: res.body.id, email, cookie: (res.headers['set-cookie'] as unknown as string[])[0].split(';')[0] };
}

const invite = (p: ProjectFixture, email: string, role = 'MEMBER', cookie = p.cookie) =>
  h.http.post(`/projects/${p.projectId}/members`).set('Cookie', cookie).send({ email, role });

/** The invitation emails to `to`, oldest first. */
const invitationsTo = (to: string) =>
  h.deps.knex('emails').whereNull('project_id').where({ to_email: to }).where('subject', 'like', 'You are invited%').orderBy('created_at');
/** The token of the newest invitation email to `to`. */
async function inviteToken(to: string): Promise<string> {
  const mails = await invitationsTo(to);
  expect(mails.length).toBeGreaterThan(0);
  const url = new URL(mails[mails.length - 1].variables.url);
  expect(`${url.origin}${url.pathname}`).toBe(`${h.config.appUrl}/app/invite`);
  return url.searchParams.get('token')!;
}

const accept = (token: string, cookie: string) => h.http.post('/auth/invites/accept').set('Cookie', cookie).send({ token });
const isMember = async (projectId: string, userId: string) =>
  !!(await h.deps.knex('project_members').where({ project_id: projectId, user_id: userId }).first());
const team = async (p: ProjectFixture) => (await h.http.get(`/projects/${p.projectId}/members`).set('Cookie', p.cookie)).body;

describe('a squatted account', () => {
  it('gets no membership when the owner of the address verifies it', async () => {
    const address = fresh('squat');
    const squatter = await signup(address, false);
    expect((await invite(owner, address, 'ADMIN')).status).toBe(202);
    // The squatter asks for a verification email; the real owner of the inbox presses its button.
    expect((await h.http.post('/auth/request-verification').set('Cookie', squatter.cookie)).status).toBe(200);
    const verification = await eventually(() =>
      h.deps.knex('emails').whereNull('project_id').where({ to_email: address }).where('subject', 'like', 'Verify%').first(),
    );
    const token = new URL(verification.variables.url).searchParams.get('token');
    expect((await h.http.post('/auth/verify-email').send({ token })).status).toBe(200);

    expect(await isMember(owner.projectId, squatter.userId)).toBe(false);
    expect((await h.http.get(`/projects/${owner.projectId}/members`).set('Cookie', squatter.cookie)).status).toBe(404);
    expect((await team(owner)).invites).toContainEqual(expect.objectContaining({ email: address, role: 'ADMIN', expired: false }));
  });

  it('gets no membership when the owner of the address resets its password', async () => {
    const address = fresh('squat');
    const squatter = await signup(address, false);
    expect((await invite(owner, address, 'ADMIN')).status).toBe(202);
    await h.http.post('/auth/request-password-reset').send({ email: address });
    const reset = await eventually(() => h.deps.knex('emails').whereNull('project_id').where({ to_email: address }).where('subject', 'like', 'Reset%').first());
    const token = new URL(reset.variables.url).searchParams.get('token');
    expect((await h.http.post('/auth/reset-password').send({ token, password: 'the owner takes it back' })).status).toBe(200);

    expect(await isMember(owner.projectId, squatter.userId)).toBe(false);
    expect((await team(owner)).invites.map((i: { email: string }) => i.email)).toContain(address);
  });
});

describe('accepting with the emailed token', () => {
  it('shows the offer, then makes the verified account of the invited address a member, once', async () => {
    const address = fresh();
    expect((await invite(owner, address, 'ADMIN')).status).toBe(202);
    const token = await inviteToken(address);

    const offer = await h.http.get(`/auth/invites/${token}`);
    expect(offer.status).toBe(200);
    expect(offer.body).toEqual({ projectName: 'invites', role: 'ADMIN', email: address, expiresAt: expect.any(String) });

    const invitee = await signup(address.toUpperCase(), true);
    const res = await accept(token, invitee.cookie);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ projectId: owner.projectId, role: 'ADMIN' });
    expect((await team(owner)).members).toContainEqual(expect.objectContaining({ userId: invitee.userId, role: 'ADMIN' }));
    expect((await team(owner)).invites.map((i: { email: string }) => i.email)).not.toContain(address);

    const again = await accept(token, invitee.cookie);
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('NOT_FOUND');
    expect((await h.http.get(`/auth/invites/${token}`)).status).toBe(404);
  });

  it('refuses a forwarded link with 403 and keeps the invite for its owner, whose unverified account the token verifies', async () => {
    const address = fresh();
    expect((await invite(owner, address)).status).toBe(202);
    const token = await inviteToken(address);

    const forwardedTo = await signup(fresh('colleague'), true);
    const forwarded = await accept(token, forwardedTo.cookie);
    expect(forwarded.status).toBe(403);
    expect(forwarded.body.error.code).toBe('FORBIDDEN');
    expect(await isMember(owner.projectId, forwardedTo.userId)).toBe(false);

    // The token reached the invited inbox: accepting with it proves the address.
    const unverified = await signup(address, false);
    expect((await accept(token, unverified.cookie)).body).toEqual({ projectId: owner.projectId, role: 'MEMBER' });
    expect((await h.deps.knex('users').where({ id: unverified.userId }).first()).email_verified).toBe(true);
  });

  it('stores only a hash of the token, and a new invitation email replaces the link', async () => {
    const address = fresh();
    expect((await invite(owner, address)).status).toBe(202);
    const first = await inviteToken(address);
    const row = await h.deps.knex('project_invites').where({ project_id: owner.projectId, email: address }).first();
    expect(JSON.stringify(row)).not.toContain(first);
    expect(row.token_hash).toBe(crypto.createHash('sha256').update(first).digest('hex'));

    // Past the resend window the invite is mailed again with a new token; the old link stops working.
    await h.deps
      .knex('project_invites')
      .where({ id: row.id })
      .update({ last_sent_at: h.deps.knex.raw("now() - interval '11 minutes'") });
    expect((await invite(owner, address)).status).toBe(202);
    expect(await invitationsTo(address)).toHaveLength(2);
    const second = await inviteToken(address);
    expect(second).not.toBe(first);
    expect((await h.http.get(`/auth/invites/${first}`)).status).toBe(404);
    expect((await h.http.get(`/auth/invites/${second}`)).status).toBe(200);
  });

  it('expires after 7 days: listed as expired, not accepted, and inviting again sends a working link', async () => {
    const address = fresh();
    const created = await invite(owner, address);
    expect(created.status).toBe(202);
    expect(new Date(created.body.expiresAt).getTime() - new Date(created.body.createdAt).getTime()).toBeGreaterThan(7 * 86400_000 - 60_000);
    expect(new Date(created.body.expiresAt).getTime() - new Date(created.body.createdAt).getTime()).toBeLessThan(7 * 86400_000 + 60_000);
    expect(created.body.expired).toBe(false);
    const token = await inviteToken(address);
    const invitee = await signup(address, true);

    await h.deps
      .knex('project_invites')
      .where({ id: created.body.id })
      .update({ expires_at: h.deps.knex.raw("now() - interval '1 second'") });
    expect((await h.http.get(`/auth/invites/${token}`)).status).toBe(404);
    expect((await accept(token, invitee.cookie)).status).toBe(404);
    expect((await team(owner)).invites).toContainEqual(expect.objectContaining({ id: created.body.id, expired: true }));

    // The address now has a verified account, so inviting it again adds it directly.
    expect((await invite(owner, address)).status).toBe(201);
    expect((await team(owner)).invites.map((i: { id: string }) => i.id)).not.toContain(created.body.id);
  });

  it('an expired invite of an address without an account is mailed again with a fresh week', async () => {
    const address = fresh();
    const created = await invite(owner, address);
    await h.deps
      .knex('project_invites')
      .where({ id: created.body.id })
      .update({ expires_at: h.deps.knex.raw("now() - interval '1 second'") });
    const again = await invite(owner, address);
    expect(again.status).toBe(202);
    expect(again.body.expired).toBe(false);
    expect(await invitationsTo(address)).toHaveLength(2);
    expect((await h.http.get(`/auth/invites/${await inviteToken(address)}`)).status).toBe(200);
  });

  it('answers unknown tokens with 404, malformed ones with 422 (body) or 404 (path), and needs the session', async () => {
    const someone = await signup(fresh(), true);
    const unknown = crypto.randomBytes(24).toString('hex');
    expect((await accept(unknown, someone.cookie)).status).toBe(404);
    expect((await h.http.get(`/auth/invites/${unknown}`)).status).toBe(404);
    expect((await accept('not a token!', someone.cookie)).status).toBe(422);
    expect((await h.http.get('/auth/invites/not%20a%20token')).status).toBe(404);
    expect((await h.http.post('/auth/invites/accept').send({ token: unknown })).status).toBe(401);
    // A cookie route: another site's page cannot accept for the visitor.
    expect((await accept(unknown, someone.cookie).set('Origin', 'https://evil.example')).status).toBe(403);
  });
});

describe('the invite page', () => {
  const acceptForm = (token: string, cookie: string, headers: Record<string, string>) =>
    h.http.post('/invite').set('Cookie', cookie).set(headers).type('form').send({ token });

  it('changes nothing on GET, shows the Accept button only to the verified invitee, and accepts from this site only', async () => {
    const address = fresh();
    expect((await invite(owner, address, 'ADMIN')).status).toBe(202);
    const token = await inviteToken(address);
    const invitee = await signup(address, true);
    const stranger = await signup(fresh('stranger'), true);

    const anonymous = await h.http.get(`/invite?token=${token}`);
    expect(anonymous.status).toBe(200);
    expect(anonymous.headers['content-security-policy']).toMatch(/default-src 'none'/);
    expect(anonymous.text).toContain('to the project <strong>invites</strong> as <strong>ADMIN</strong>');
    expect(anonymous.text).toContain(`/signup?email=${encodeURIComponent(address)}&amp;invite=${token}`);
    expect(anonymous.text).not.toContain('<button');
    expect((await h.http.get(`/invite?token=${token}`).set('Cookie', stranger.cookie)).text).toContain(`You are signed in as ${stranger.email}`);
    const mine = await h.http.get(`/invite?token=${token}`).set('Cookie', invitee.cookie);
    expect(mine.text).toContain('Accept invite');
    expect(mine.text).not.toContain('<script');
    expect(await isMember(owner.projectId, invitee.userId)).toBe(false);

    const foreign: Array<Record<string, string>> = [{ Origin: 'https://evil.example' }, { Origin: 'null' }, { 'Sec-Fetch-Site': 'cross-site' }, {}];
    for (const headers of foreign) {
      const refused = await acceptForm(token, invitee.cookie, headers);
      expect(refused.status).toBe(403);
      expect(refused.type).toBe('text/html');
    }
    expect(await isMember(owner.projectId, invitee.userId)).toBe(false);
    expect((await acceptForm(token, stranger.cookie, { Origin: new URL(h.config.appUrl).origin })).status).toBe(403);
    expect((await acceptForm(token, '', { Origin: new URL(h.config.appUrl).origin })).status).toBe(401);
    expect(await isMember(owner.projectId, stranger.userId)).toBe(false);

    // A page with Referrer-Policy no-referrer posts with Origin null; Sec-Fetch-Site vouches for it.
    const accepted = await acceptForm(token, invitee.cookie, { Origin: 'null', 'Sec-Fetch-Site': 'same-origin' });
    expect(accepted.status).toBe(200);
    expect(accepted.text).toContain('You joined <strong>invites</strong> as <strong>ADMIN</strong>');
    expect(await isMember(owner.projectId, invitee.userId)).toBe(true);
    expect((await acceptForm(token, invitee.cookie, { Origin: new URL(h.config.appUrl).origin })).status).toBe(404);
    expect((await h.http.get(`/invite?token=${token}`)).status).toBe(404);
    expect((await h.http.get('/invite?token=not-a-token')).status).toBe(404);
  });
});

describe('invitation emails', () => {
  it('carry the project name as a variable, never as template source', async () => {
    const p = await createProjectFixture(h, '{{ 7 | times: 6 }}');
    const address = fresh();
    expect((await invite(p, address)).status).toBe(202);
    const [mail] = await invitationsTo(address);
    const sent = await eventually(async () => {
      const row = await h.deps.knex('emails').where({ id: mail.id }).first();
      return row.status === 'SENT' ? row : null;
    });
    expect(sent.rendered_subject).toBe('You are invited to {{ 7 | times: 6 }}');
    expect(sent.rendered_body).toContain('{{ 7 | times: 6 }}');
    // The project name as rendered output would read “42”; the random inviter address may hold the digits anywhere else.
    expect(sent.rendered_body).not.toContain('“42”');
  });

  it('inviting the same address again within 10 minutes answers as before but sends nothing new', async () => {
    const address = fresh();
    const first = await invite(owner, address, 'MEMBER');
    const second = await invite(owner, address, 'ADMIN');
    expect(second.status).toBe(202);
    expect(second.body).toMatchObject({ id: first.body.id, email: address, role: 'ADMIN' });
    expect(await invitationsTo(address)).toHaveLength(1);
    // The link already mailed offers the role as it is now.
    expect((await h.http.get(`/auth/invites/${await inviteToken(address)}`)).body.role).toBe('ADMIN');
  });

  it(`at most ${INVITE_LIMITS.perProject.max} per project and hour, then 429 RATE_LIMIT_EXCEEDED with Retry-After`, async () => {
    const p = await createProjectFixture(h, 'busy inviter');
    for (let i = 0; i < INVITE_LIMITS.perProject.max; i++) expect((await invite(p, fresh('bulk'))).status).toBe(202);
    const address = fresh('bulk');
    const refused = await invite(p, address);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ success: false, error: { code: 'RATE_LIMIT_EXCEEDED', statusCode: 429, requestId: expect.any(String) } });
    const retry = Number(refused.headers['retry-after']);
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(INVITE_LIMITS.perProject.seconds);
    expect(await invitationsTo(address)).toHaveLength(0);
    expect((await team(p)).invites).toHaveLength(INVITE_LIMITS.perProject.max);
    // Withdrawing an invite does not give the allowance back.
    const [one] = (await team(p)).invites;
    expect((await h.http.delete(`/projects/${p.projectId}/invites/${one.id}`).set('Cookie', p.cookie)).status).toBe(204);
    expect((await invite(p, one.email)).status).toBe(429);
    // Another project is not affected.
    expect((await invite(owner, address)).status).toBe(202);
  });

  it(`at most ${INVITE_LIMITS.perAddress.max} per address and day, whichever projects invite it`, async () => {
    const address = fresh('popular');
    const projects = await Promise.all(Array.from({ length: INVITE_LIMITS.perAddress.max + 1 }, (_, i) => createProjectFixture(h, `inviter ${i}`)));
    for (const p of projects.slice(0, -1)) expect((await invite(p, address)).status).toBe(202);
    const refused = await invite(projects[projects.length - 1], address);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(INVITE_LIMITS.perProject.seconds);
    expect(await invitationsTo(address)).toHaveLength(INVITE_LIMITS.perAddress.max);
  });
});

describe('OWNER invites', () => {
  it('an ADMIN can neither change nor withdraw a pending OWNER invite, nor replace it by adding the account', async () => {
    const adminAccount = await signup(fresh('admin'), true);
    expect((await invite(owner, adminAccount.email, 'ADMIN')).status).toBe(201);
    const address = fresh('heir');
    const pending = await invite(owner, address, 'OWNER');
    expect(pending.status).toBe(202);

    const downgrade = await invite(owner, address, 'MEMBER', adminAccount.cookie);
    expect(downgrade.status).toBe(403);
    expect(downgrade.body.error.code).toBe('FORBIDDEN');
    expect((await h.http.delete(`/projects/${owner.projectId}/invites/${pending.body.id}`).set('Cookie', adminAccount.cookie)).status).toBe(403);
    const heir = await signup(address, true);
    expect((await invite(owner, address, 'ADMIN', adminAccount.cookie)).status).toBe(403);
    expect(await isMember(owner.projectId, heir.userId)).toBe(false);
    expect((await team(owner)).invites).toContainEqual(expect.objectContaining({ id: pending.body.id, role: 'OWNER' }));

    // The owner may change it.
    expect((await invite(owner, address, 'ADMIN')).status).toBe(201);
  });
});
