import crypto from 'node:crypto';
import { startHarness, createProjectFixture, Harness, ProjectFixture } from '../helpers/harness';
import { renderTemplate } from '../../services/render';
import { INVITE_LIMITS } from '../../db/members';

/**
 * "Added, and told" (docs/roles.md): a verified account added to a project joins at once (201), is
 * emailed who added it where with a one-click "Leave project" link (GET shows, POST leaves, once),
 * and sees who added it in GET /users/@me/projects.
 */

let h: Harness;
let owner: ProjectFixture;
type Account = { userId: string; email: string; cookie: string };

beforeAll(async () => {
  h = await startHarness();
  owner = await createProjectFixture(h, 'Ops <team> “North”');
});
afterAll(() => h?.stop());

async function verifiedAccount(): Promise<Account> {
  const email = `added-${crypto.randomBytes(5).toString('hex')}@example.test`;
  const res = await h.http.post('/auth/signup').send({ email, password: 'correct horse battery' });
  expect(res.status).toBe(201);
  await h.deps.knex('users').where({ id: res.body.id }).update({ email_verified: true });
  return { userId: res.body.id, email, cookie: (res.headers['set-cookie'] as unknown as string[])[0].split(';')[0] };
}

const add = (p: ProjectFixture, email: string, role = 'MEMBER') =>
  h.http.post(`/projects/${p.projectId}/members`).set('Cookie', p.cookie).send({ email, role });
const addedEmails = (to: string) =>
  h.deps.knex('emails').whereNull('project_id').where({ to_email: to }).where('subject', 'like', 'You were added%').orderBy('created_at');
const isMember = async (projectId: string, userId: string) =>
  !!(await h.deps.knex('project_members').where({ project_id: projectId, user_id: userId }).first());
const leavePath = (url: string) => {
  const u = new URL(url);
  expect(`${u.origin}${u.pathname}`).toBe(`${h.config.appUrl}/leave-project`);
  return { path: `${u.pathname}${u.search}`, token: u.searchParams.get('token')! };
};

describe('adding a verified account', () => {
  it('still joins it at once (201), and emails it the project, who added it and a leave link', async () => {
    const person = await verifiedAccount();
    const res = await add(owner, person.email, 'ADMIN');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ userId: person.userId, role: 'ADMIN' });
    expect(await isMember(owner.projectId, person.userId)).toBe(true);

    const mails = await addedEmails(person.email);
    expect(mails).toHaveLength(1);
    expect(mails[0].variables).toMatchObject({ adder: owner.email, project: 'Ops <team> “North”', role: 'ADMIN' });
    // What the person reads: the project's name (escaped, never evaluated) and who added them.
    const rendered = await renderTemplate({ subject: mails[0].subject, body: mails[0].body }, mails[0].variables);
    expect(rendered.subject).toBe('You were added to Ops <team> “North”');
    expect(rendered.body).toContain(`${owner.email} added you to the project “Ops &lt;team&gt; “North”” as ADMIN`);
    expect(rendered.body).toContain('Leave project');
    leavePath(mails[0].variables.leaveUrl);
  });

  it('records who added it: addedBy in GET /users/@me/projects, null on the projects one created', async () => {
    const person = await verifiedAccount();
    expect((await add(owner, person.email)).status).toBe(201);
    const own = await h.http.post('/users/@me/projects').set('Cookie', person.cookie).send({ name: 'Mine' });
    expect(own.status).toBe(201);
    const listed = await h.http.get('/users/@me/projects').set('Cookie', person.cookie);
    expect(listed.status).toBe(200);
    const byId = Object.fromEntries(listed.body.map((p: any) => [p.id, p]));
    expect(byId[owner.projectId]).toMatchObject({ role: 'MEMBER', addedBy: owner.email });
    expect(byId[own.body.id]).toMatchObject({ role: 'OWNER', addedBy: null });
    expect((await h.deps.knex('project_members').where({ project_id: owner.projectId, user_id: person.userId }).first()).added_by).toBe(owner.userId);
  });

  it('records the inviter as who added someone who joined by accepting an invite', async () => {
    const email = `invited-${crypto.randomBytes(5).toString('hex')}@example.test`;
    expect((await add(owner, email)).status).toBe(202);
    const mail = await h.deps.knex('emails').whereNull('project_id').where({ to_email: email }).where('subject', 'like', 'You are invited%').first();
    const token = new URL(mail.variables.url).searchParams.get('token');
    const signup = await h.http.post('/auth/signup').send({ email, password: 'correct horse battery' });
    await h.deps.knex('users').where({ id: signup.body.id }).update({ email_verified: true });
    const cookie = (signup.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
    expect((await h.http.post('/auth/invites/accept').set('Cookie', cookie).send({ token })).status).toBe(200);
    const listed = await h.http.get('/users/@me/projects').set('Cookie', cookie);
    expect(listed.body).toEqual([expect.objectContaining({ id: owner.projectId, addedBy: owner.email })]);
  });

  it('lets the person leave from the link: GET only shows, POST leaves, and the link works once', async () => {
    const person = await verifiedAccount();
    expect((await add(owner, person.email)).status).toBe(201);
    const { path, token } = leavePath((await addedEmails(person.email))[0].variables.leaveUrl);

    // Link scanners open every GET: it shows the project and a button, and changes nothing.
    for (let i = 0; i < 2; i++) {
      const page = await h.http.get(path);
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toMatch(/text\/html/);
      expect(page.text).toContain('Ops &lt;team&gt; “North”');
      expect(page.text).toMatch(/<form method="post" action="\/leave-project">/);
      expect(page.text).toContain('Leave project</button>');
    }
    expect(await isMember(owner.projectId, person.userId)).toBe(true);

    const left = await h.http.post('/leave-project').type('form').send({ token });
    expect(left.status).toBe(200);
    expect(left.text).toContain('no longer a member');
    expect(await isMember(owner.projectId, person.userId)).toBe(false);
    const audit = await h.deps.knex('audit_log').where({ project_id: owner.projectId, action: 'member.remove' }).orderBy('at', 'desc').first();
    expect(audit).toMatchObject({ actor: person.userId });

    // Once: the same link neither shows nor leaves again, not even after the person is added back.
    expect((await h.http.post('/leave-project').type('form').send({ token })).status).toBe(404);
    expect((await add(owner, person.email)).status).toBe(201);
    expect((await h.http.get(path)).status).toBe(404);
    expect((await h.http.post('/leave-project').type('form').send({ token })).status).toBe(404);
    expect(await isMember(owner.projectId, person.userId)).toBe(true);
  });

  it('keeps adding (201) but stops mailing an address past its daily bound, so add-and-remove cycles are no mailer', async () => {
    const person = await verifiedAccount();
    for (let i = 1; i <= INVITE_LIMITS.perAddress.max + 1; i++) {
      expect((await add(owner, person.email)).status).toBe(201);
      expect(await isMember(owner.projectId, person.userId)).toBe(true);
      expect((await h.http.delete(`/projects/${owner.projectId}/members/${person.userId}`).set('Cookie', owner.cookie)).status).toBe(204);
    }
    expect(await addedEmails(person.email)).toHaveLength(INVITE_LIMITS.perAddress.max);
    // The project's invitation allowance is its own: these mails did not use it up.
    const invited = `invited-${crypto.randomBytes(5).toString('hex')}@example.test`;
    expect((await add(owner, invited)).status).toBe(202);
  });

  it('refuses forged or altered tokens, and keeps the last-owner rule', async () => {
    const person = await verifiedAccount();
    expect((await add(owner, person.email, 'OWNER')).status).toBe(201);
    const { token } = leavePath((await addedEmails(person.email))[0].variables.leaveUrl);
    const [payload, signature] = token.split('.');
    const altered = `${payload}.${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
    for (const bad of [altered, 'nonsense', `${Buffer.from(JSON.stringify([owner.projectId, person.userId, 0])).toString('base64url')}.${signature}`]) {
      expect((await h.http.get(`/leave-project?token=${encodeURIComponent(bad)}`)).status).toBe(404);
      expect((await h.http.post('/leave-project').type('form').send({ token: bad })).status).toBe(404);
    }

    // The original owner leaves through the dashboard; the added OWNER is then the last one and cannot leave by the link.
    expect((await h.http.delete(`/projects/${owner.projectId}/members/${owner.userId}`).set('Cookie', owner.cookie)).status).toBe(204);
    const refused = await h.http.post('/leave-project').type('form').send({ token });
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('last owner');
    expect(await isMember(owner.projectId, person.userId)).toBe(true);
  });
});
