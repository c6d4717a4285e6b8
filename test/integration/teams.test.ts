import crypto from 'node:crypto';
import { startHarness, createProjectFixture, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { checkSuspension } from '../../db/security';

let h: Harness;
let owner: ProjectFixture;
let other: ProjectFixture;
type Account = { userId: string; email: string; cookie: string };
let admin: Account;
let member: Account;

async function signup(verified: boolean, email = `u-${crypto.randomBytes(5).toString('hex')}@example.test`): Promise<Account> {
  const res = await h.http.post('/auth/signup').send({ email, password: 'correct horse battery' });
  expect(res.status).toBe(201);
  if (verified) await h.deps.knex('users').where({ id: res.body.id }).update({ email_verified: true });
  return { userId: res.body.id, email, cookie: (res.headers['set-cookie'] as unknown as string[])[0].split(';')[0] };
}

/** A verified account made a member of the owner's project with `role`. */
async function joined(role: string): Promise<Account> {
  const a = await signup(true);
  const res = await h.http.post(`/projects/${owner.projectId}/members`).set('Cookie', owner.cookie).send({ email: a.email, role });
  expect(res.status).toBe(201);
  return a;
}

beforeAll(async () => {
  h = await startHarness();
  [owner, other] = await Promise.all([createProjectFixture(h, 'team'), createProjectFixture(h, 'other')]);
  admin = await joined('ADMIN');
  member = await joined('MEMBER');
});
afterAll(() => h?.stop());

const P = () => owner.projectId;
const fresh = () => `new-${crypto.randomBytes(5).toString('hex')}@example.test`;

type Who = 'OWNER' | 'ADMIN' | 'MEMBER' | 'OUTSIDER';
const cookieOf = (who: Who) => ({ OWNER: owner.cookie, ADMIN: admin.cookie, MEMBER: member.cookie, OUTSIDER: other.cookie })[who];

/** The dashboard's way onto a secret-key route: the cookie, the project in X-Project-Id, our own origin. */
const dash = (cookie: string) => ({ Cookie: cookie, 'X-Project-Id': P(), Origin: h.config.appUrl });
const key = () => ({ Authorization: `Bearer ${owner.secretKey}` });
/** Targets made with the key, one per attempt. */
const endpoint = async () =>
  (
    await h.http
      .post('/webhook-endpoints')
      .set(key())
      .send({ url: 'https://hooks.example.com/t', events: ['email.sent'] })
  ).body.id as string;
const suppressed = async () => {
  const email = fresh();
  expect(
    (
      await h.http
        .post('/suppressions')
        .set(key())
        .send({ emails: [email] })
    ).status,
  ).toBe(201);
  return email;
};
const domainName = () => `d-${crypto.randomBytes(4).toString('hex')}.example.com`;
const domain = async () => (await h.http.post('/domains').set(key()).send({ domain: domainName() })).body.id as string;

/** Each action builds its own targets, so one role's success cannot change what the next role sees. */
const ACTIONS: Record<string, { run: (c: string) => Promise<any>; expect: Record<Who, number> }> = {
  'list members': { run: (c) => h.http.get(`/projects/${P()}/members`).set('Cookie', c), expect: { OWNER: 200, ADMIN: 200, MEMBER: 200, OUTSIDER: 404 } },
  'setup state': { run: (c) => h.http.get(`/projects/${P()}/setup-state`).set('Cookie', c), expect: { OWNER: 200, ADMIN: 200, MEMBER: 200, OUTSIDER: 404 } },
  security: { run: (c) => h.http.get(`/projects/${P()}/security`).set('Cookie', c), expect: { OWNER: 200, ADMIN: 200, MEMBER: 200, OUTSIDER: 404 } },
  'security (users/@me)': {
    run: (c) => h.http.get(`/users/@me/projects/${P()}/security`).set('Cookie', c),
    expect: { OWNER: 200, ADMIN: 200, MEMBER: 200, OUTSIDER: 404 },
  },
  'read billing limits': {
    run: (c) => h.http.get(`/users/@me/projects/${P()}/billing-limits`).set('Cookie', c),
    expect: { OWNER: 200, ADMIN: 200, MEMBER: 200, OUTSIDER: 404 },
  },
  'read consumption': {
    run: (c) => h.http.get(`/users/@me/projects/${P()}/billing-consumption`).set('Cookie', c),
    expect: { OWNER: 200, ADMIN: 200, MEMBER: 200, OUTSIDER: 404 },
  },
  'read invoices': {
    run: (c) => h.http.get(`/users/@me/projects/${P()}/billing-invoices`).set('Cookie', c),
    expect: { OWNER: 200, ADMIN: 200, MEMBER: 200, OUTSIDER: 404 },
  },
  'set billing limits': {
    run: (c) => h.http.put(`/users/@me/projects/${P()}/billing-limits`).set('Cookie', c).send({ emails: 1000 }),
    expect: { OWNER: 200, ADMIN: 200, MEMBER: 403, OUTSIDER: 404 },
  },
  'rename project': {
    run: (c) => h.http.patch(`/users/@me/projects/${P()}`).set('Cookie', c).send({ name: 'renamed' }),
    expect: { OWNER: 200, ADMIN: 200, MEMBER: 403, OUTSIDER: 404 },
  },
  'read the audit log': { run: (c) => h.http.get(`/projects/${P()}/audit`).set('Cookie', c), expect: { OWNER: 200, ADMIN: 200, MEMBER: 403, OUTSIDER: 404 } },
  'rotate keys': {
    // The new key is the one the cells below make their targets with.
    run: async (c) => {
      const res = await h.http.post(`/users/@me/projects/${P()}/regenerate-keys`).set('Cookie', c);
      if (res.status === 200) owner.secretKey = res.body.secretKey;
      return res;
    },
    expect: { OWNER: 200, ADMIN: 200, MEMBER: 403, OUTSIDER: 404 },
  },
  'invite a MEMBER': {
    run: (c) => h.http.post(`/projects/${P()}/members`).set('Cookie', c).send({ email: fresh(), role: 'MEMBER' }),
    expect: { OWNER: 202, ADMIN: 202, MEMBER: 403, OUTSIDER: 404 },
  },
  'invite an OWNER': {
    run: (c) => h.http.post(`/projects/${P()}/members`).set('Cookie', c).send({ email: fresh(), role: 'OWNER' }),
    expect: { OWNER: 202, ADMIN: 403, MEMBER: 403, OUTSIDER: 404 },
  },
  'promote a member to ADMIN': {
    run: async (c) =>
      h.http
        .patch(`/projects/${P()}/members/${(await joined('MEMBER')).userId}`)
        .set('Cookie', c)
        .send({ role: 'ADMIN' }),
    expect: { OWNER: 200, ADMIN: 200, MEMBER: 403, OUTSIDER: 404 },
  },
  'promote a member to OWNER': {
    run: async (c) =>
      h.http
        .patch(`/projects/${P()}/members/${(await joined('MEMBER')).userId}`)
        .set('Cookie', c)
        .send({ role: 'OWNER' }),
    expect: { OWNER: 200, ADMIN: 403, MEMBER: 403, OUTSIDER: 404 },
  },
  'demote another OWNER': {
    run: async (c) =>
      h.http
        .patch(`/projects/${P()}/members/${(await joined('OWNER')).userId}`)
        .set('Cookie', c)
        .send({ role: 'MEMBER' }),
    expect: { OWNER: 200, ADMIN: 403, MEMBER: 403, OUTSIDER: 404 },
  },
  'remove a member': {
    run: async (c) => h.http.delete(`/projects/${P()}/members/${(await joined('MEMBER')).userId}`).set('Cookie', c),
    expect: { OWNER: 204, ADMIN: 204, MEMBER: 403, OUTSIDER: 404 },
  },
  'remove another OWNER': {
    run: async (c) => h.http.delete(`/projects/${P()}/members/${(await joined('OWNER')).userId}`).set('Cookie', c),
    expect: { OWNER: 204, ADMIN: 403, MEMBER: 403, OUTSIDER: 404 },
  },
  'start a checkout': {
    run: (c) => h.http.post(`/users/@me/projects/${P()}/checkout`).set('Cookie', c),
    expect: { OWNER: 404, ADMIN: 403, MEMBER: 403, OUTSIDER: 404 },
  },
  // Secret-key routes reached with the cookie and X-Project-Id (api/route.ts `role`); the key itself is never asked for a role.
  'list webhook endpoints': { run: (c) => h.http.get('/webhook-endpoints').set(dash(c)), expect: { OWNER: 200, ADMIN: 200, MEMBER: 200, OUTSIDER: 404 } },
  'create a webhook endpoint': {
    run: (c) =>
      h.http
        .post('/webhook-endpoints')
        .set(dash(c))
        .send({ url: 'https://hooks.example.com/t', events: ['*'] }),
    expect: { OWNER: 201, ADMIN: 201, MEMBER: 403, OUTSIDER: 404 },
  },
  'change a webhook endpoint': {
    run: async (c) =>
      h.http
        .patch(`/webhook-endpoints/${await endpoint()}`)
        .set(dash(c))
        .send({ enabled: false }),
    expect: { OWNER: 200, ADMIN: 200, MEMBER: 403, OUTSIDER: 404 },
  },
  'rotate a webhook secret': {
    run: async (c) => h.http.post(`/webhook-endpoints/${await endpoint()}/rotate-secret`).set(dash(c)),
    expect: { OWNER: 200, ADMIN: 200, MEMBER: 403, OUTSIDER: 404 },
  },
  'delete a webhook endpoint': {
    run: async (c) => h.http.delete(`/webhook-endpoints/${await endpoint()}`).set(dash(c)),
    expect: { OWNER: 204, ADMIN: 204, MEMBER: 403, OUTSIDER: 404 },
  },
  'list suppressions': { run: (c) => h.http.get('/suppressions').set(dash(c)), expect: { OWNER: 200, ADMIN: 200, MEMBER: 200, OUTSIDER: 404 } },
  'add a suppression': {
    run: (c) =>
      h.http
        .post('/suppressions')
        .set(dash(c))
        .send({ emails: [fresh()] }),
    expect: { OWNER: 201, ADMIN: 201, MEMBER: 403, OUTSIDER: 404 },
  },
  'lift a suppression': {
    run: async (c) => h.http.delete(`/suppressions/${encodeURIComponent(await suppressed())}`).set(dash(c)),
    expect: { OWNER: 204, ADMIN: 204, MEMBER: 403, OUTSIDER: 404 },
  },
  'list domains': { run: (c) => h.http.get(`/domains/project/${P()}`).set(dash(c)), expect: { OWNER: 200, ADMIN: 200, MEMBER: 200, OUTSIDER: 404 } },
  'add a domain': {
    run: (c) => h.http.post('/domains').set(dash(c)).send({ domain: domainName() }),
    expect: { OWNER: 201, ADMIN: 201, MEMBER: 403, OUTSIDER: 404 },
  },
  'delete a domain': {
    run: async (c) => h.http.delete(`/domains/${await domain()}`).set(dash(c)),
    expect: { OWNER: 204, ADMIN: 204, MEMBER: 403, OUTSIDER: 404 },
  },
  'read the settings': { run: (c) => h.http.get('/settings').set(dash(c)), expect: { OWNER: 200, ADMIN: 200, MEMBER: 200, OUTSIDER: 404 } },
  'change the settings': {
    run: (c) => h.http.patch('/settings').set(dash(c)).send({ timezone: 'Europe/Paris' }),
    expect: { OWNER: 200, ADMIN: 200, MEMBER: 403, OUTSIDER: 404 },
  },
  'reset the project': {
    run: (c) => h.http.post(`/users/@me/projects/${P()}/reset`).set('Cookie', c),
    expect: { OWNER: 200, ADMIN: 403, MEMBER: 403, OUTSIDER: 404 },
  },
};
const WHO: Who[] = ['OUTSIDER', 'MEMBER', 'ADMIN', 'OWNER'];
const table = Object.entries(ACTIONS).flatMap(([action, a]) => WHO.map((who) => [action, who, a.expect[who]] as const));

describe('roles × actions', () => {
  it.each(table)('%s as %s → %i', async (action, who, status) => {
    const res = await ACTIONS[action].run(cookieOf(who));
    expect(res.status).toBe(status);
    if (status >= 400) expect(res.body.success).toBe(false);
  });

  it('deleting the project is for owners only', async () => {
    const p = await createProjectFixture(h, 'doomed');
    const a = await signup(true);
    expect((await h.http.post(`/projects/${p.projectId}/members`).set('Cookie', p.cookie).send({ email: a.email, role: 'ADMIN' })).status).toBe(201);
    expect((await h.http.delete(`/users/@me/projects/${p.projectId}`).set('Cookie', a.cookie)).status).toBe(403);
    expect((await h.http.delete(`/users/@me/projects/${p.projectId}`).set('Cookie', other.cookie)).status).toBe(404);
    expect((await h.http.delete(`/users/@me/projects/${p.projectId}`).set('Cookie', p.cookie)).status).toBe(204);
  });
});

describe('owners', () => {
  it('the last owner can be neither demoted nor removed, also not by themselves; with a second owner they may leave', async () => {
    const p = await createProjectFixture(h, 'solo');
    const demote = await h.http.patch(`/projects/${p.projectId}/members/${p.userId}`).set('Cookie', p.cookie).send({ role: 'ADMIN' });
    expect(demote.status).toBe(409);
    expect((await h.http.delete(`/projects/${p.projectId}/members/${p.userId}`).set('Cookie', p.cookie)).status).toBe(409);

    const heir = await signup(true);
    expect((await h.http.post(`/projects/${p.projectId}/members`).set('Cookie', p.cookie).send({ email: heir.email, role: 'OWNER' })).status).toBe(201);
    expect((await h.http.delete(`/projects/${p.projectId}/members/${p.userId}`).set('Cookie', p.cookie)).status).toBe(204);
    const team = await h.http.get(`/projects/${p.projectId}/members`).set('Cookie', heir.cookie);
    expect(team.body.members).toEqual([expect.objectContaining({ userId: heir.userId, role: 'OWNER' })]);
    expect((await h.http.delete(`/projects/${p.projectId}/members/${heir.userId}`).set('Cookie', heir.cookie)).status).toBe(409);
  });

  it('a member may leave on their own', async () => {
    const m = await joined('MEMBER');
    expect((await h.http.delete(`/projects/${P()}/members/${m.userId}`).set('Cookie', m.cookie)).status).toBe(204);
    expect((await h.http.get(`/projects/${P()}/members`).set('Cookie', m.cookie)).status).toBe(404);
  });
});

describe('invites', () => {
  it('an unknown address gets a pending invite and an email; the account that verifies the address joins with the role by accepting it', async () => {
    const email = fresh();
    const res = await h.http.post(`/projects/${P()}/members`).set('Cookie', owner.cookie).send({ email, role: 'ADMIN' });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ email, role: 'ADMIN', invitedBy: owner.userId, expired: false });
    const mail = await eventually(() => h.deps.knex('emails').whereNull('project_id').where({ to_email: email }).first());
    expect(mail.variables.project).toBe((await h.deps.knex('projects').where({ id: P() }).first()).name);
    const inviteToken = new URL(mail.variables.url).searchParams.get('token')!;

    const invitee = await signup(false, email.toUpperCase());
    // Signing up with the address proves nothing yet.
    expect((await h.http.get(`/projects/${P()}/members`).set('Cookie', invitee.cookie)).status).toBe(404);
    await h.http.post('/auth/request-verification').set('Cookie', invitee.cookie);
    const verification = await eventually(() =>
      h.deps.knex('emails').whereNull('project_id').where({ to_email: email }).where('subject', 'like', 'Verify%').first(),
    );
    const token = new URL(verification.variables.url).searchParams.get('token');
    expect((await h.http.post('/auth/verify-email').send({ token })).status).toBe(200);
    // Verifying is not accepting: the account joins when it accepts the invite with its emailed token.
    expect((await h.http.get(`/projects/${P()}/members`).set('Cookie', invitee.cookie)).status).toBe(404);
    expect((await h.http.post('/auth/invites/accept').set('Cookie', invitee.cookie).send({ token: inviteToken })).body).toEqual({
      projectId: P(),
      role: 'ADMIN',
    });

    const team = await h.http.get(`/projects/${P()}/members`).set('Cookie', invitee.cookie);
    expect(team.status).toBe(200);
    expect(team.body.members).toContainEqual(expect.objectContaining({ userId: invitee.userId, role: 'ADMIN' }));
    expect(team.body.invites.map((i: any) => i.email)).not.toContain(email);
  });

  it('an unverified account is invited, not added; a member cannot be added twice; an invite can be withdrawn', async () => {
    const unverified = await signup(false);
    const res = await h.http.post(`/projects/${P()}/members`).set('Cookie', owner.cookie).send({ email: unverified.email });
    expect(res.status).toBe(202);
    expect(res.body.role).toBe('MEMBER');
    expect((await h.http.delete(`/projects/${P()}/invites/${res.body.id}`).set('Cookie', member.cookie)).status).toBe(403);
    expect((await h.http.delete(`/projects/${P()}/invites/${res.body.id}`).set('Cookie', other.cookie)).status).toBe(404);
    expect((await h.http.delete(`/projects/${P()}/invites/${res.body.id}`).set('Cookie', admin.cookie)).status).toBe(204);
    expect((await h.http.delete(`/projects/${P()}/invites/${res.body.id}`).set('Cookie', admin.cookie)).status).toBe(404);

    const twice = await h.http.post(`/projects/${P()}/members`).set('Cookie', owner.cookie).send({ email: member.email, role: 'ADMIN' });
    expect(twice.status).toBe(409);
  });
});

describe('isolation', () => {
  it("never reaches another project's members through this project's routes", async () => {
    // The other project's owner, addressed through our project: not a member here.
    const patch = await h.http.patch(`/projects/${P()}/members/${other.userId}`).set('Cookie', owner.cookie).send({ role: 'MEMBER' });
    expect(patch.status).toBe(404);
    expect((await h.http.delete(`/projects/${P()}/members/${other.userId}`).set('Cookie', owner.cookie)).status).toBe(404);
    // Our project's owner cannot reach the other project at all.
    for (const path of ['members', 'setup-state', 'security']) {
      expect((await h.http.get(`/projects/${other.projectId}/${path}`).set('Cookie', owner.cookie)).status).toBe(404);
    }
    const theirs = await h.http.get(`/projects/${other.projectId}/members`).set('Cookie', other.cookie);
    expect(theirs.body.members).toEqual([expect.objectContaining({ userId: other.userId, role: 'OWNER' })]);
  });
});

describe('malformed input', () => {
  it.each([
    ['post', 'members', { email: 'not-an-email' }],
    ['post', 'members', { email: 'a@b.co', role: 'GOD' }],
    ['post', 'members', []],
  ])('%s /projects/:id/%s %j → 422', async (method, path, body) => {
    const res = await (h.http as any)[method](`/projects/${P()}/${path}`).set('Cookie', owner.cookie).send(body);
    expect(res.status).toBe(422);
  });

  it('bad ids and roles', async () => {
    expect((await h.http.patch(`/projects/${P()}/members/${member.userId}`).set('Cookie', owner.cookie).send({ role: 'owner' })).status).toBe(422);
    expect((await h.http.patch(`/projects/${P()}/members/not-a-uuid`).set('Cookie', owner.cookie).send({ role: 'ADMIN' })).status).toBe(404);
    expect((await h.http.get('/projects/not-a-uuid/members').set('Cookie', owner.cookie)).status).toBe(404);
    expect((await h.http.get(`/projects/${P()}/members`)).status).toBe(401);
  });
});

describe('setup state', () => {
  it('ticks each onboarding step as the project takes it', async () => {
    const s = await createProjectFixture(h, 'onboarding');
    const state = () =>
      h.http
        .get(`/projects/${s.projectId}/setup-state`)
        .set('Cookie', s.cookie)
        .then((r) => r.body);
    expect(await state()).toEqual({
      hasDomain: false,
      hasVerifiedDomain: false,
      hasContact: false,
      hasTemplate: false,
      hasTrackedEvent: false,
      hasSentEmail: false,
      completed: 0,
      total: 6,
      done: false,
    });
    await h.deps
      .knex('domains')
      .insert({ id: crypto.randomUUID(), project_id: s.projectId, domain: 'o.example.com', token: 't', status: 'VERIFIED', records: '[]' });
    await h.http.post('/v1/track').set('Authorization', `Bearer ${s.publicKey}`).send({ email: fresh(), event: 'signed-up' });
    expect(await state()).toMatchObject({
      hasDomain: true,
      hasVerifiedDomain: true,
      hasContact: true,
      hasTrackedEvent: true,
      hasTemplate: false,
      hasSentEmail: false,
      completed: 4,
    });
    // Another project's progress does not show here.
    expect((await h.http.get(`/projects/${other.projectId}/setup-state`).set('Cookie', other.cookie)).body.completed).toBe(0);
  });
});

describe('security and suspension', () => {
  const emails = (projectId: string, status: string, n: number) =>
    h.deps.knex('emails').insert(
      Array.from({ length: n }, () => ({
        id: crypto.randomUUID(),
        project_id: projectId,
        to_email: 'x@example.org',
        from_email: 'a@example.com',
        subject: 's',
        body: 'b',
        status,
      })),
    );

  it('suspends a project whose bounce rate is above the threshold: its keys get 403 PROJECT_DISABLED and the security page says why', async () => {
    const s = await createProjectFixture(h, 'bouncy');
    const clean = await createProjectFixture(h, 'clean');
    await emails(s.projectId, 'DELIVERED', 90);
    await emails(s.projectId, 'BOUNCED', 10);
    await emails(clean.projectId, 'DELIVERED', 200);
    await emails(clean.projectId, 'BOUNCED', 2);

    expect((await checkSuspension(h.deps.knex, clean.projectId, h.config.security)).suspended).toBe(false);
    const first = await checkSuspension(h.deps.knex, s.projectId, h.config.security);
    expect(first).toMatchObject({ suspended: true, stats: { sent: 100, bounced: 10, bounceRate: 0.1 } });
    expect(first.reason).toMatch(/bounce rate 10\.00%/);
    // Already suspended: nothing new is recorded.
    expect((await checkSuspension(h.deps.knex, s.projectId, h.config.security)).suspended).toBe(false);

    const denied = await h.http.get('/contacts').set('Authorization', `Bearer ${s.secretKey}`);
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('PROJECT_DISABLED');
    expect((await h.http.get('/contacts').set('Authorization', `Bearer ${clean.secretKey}`)).status).toBe(200);

    const page = await h.http.get(`/projects/${s.projectId}/security`).set('Cookie', s.cookie);
    expect(page.body).toMatchObject({ disabled: true, sent: 100, bounced: 10, complained: 0, bounceRate: 0.1, complaintRate: 0 });
    expect(page.body.suspensions).toEqual([expect.objectContaining({ reason: first.reason, sent: 100, bounced: 10 })]);
    const cleanPage = await h.http.get(`/users/@me/projects/${clean.projectId}/security`).set('Cookie', clean.cookie);
    expect(cleanPage.body).toMatchObject({ disabled: false, sent: 202, bounced: 2, suspensions: [] });
  });

  it('suspends on complaints too, but never on a handful of emails', async () => {
    const few = await createProjectFixture(h, 'few');
    await emails(few.projectId, 'COMPLAINED', 5);
    expect((await checkSuspension(h.deps.knex, few.projectId, h.config.security)).suspended).toBe(false);
    const many = await createProjectFixture(h, 'many');
    await emails(many.projectId, 'SENT', 995);
    await emails(many.projectId, 'COMPLAINED', 5);
    const r = await checkSuspension(h.deps.knex, many.projectId, h.config.security);
    expect(r.suspended).toBe(true);
    expect(r.reason).toMatch(/complaint rate 0\.50%/);
  });
});
