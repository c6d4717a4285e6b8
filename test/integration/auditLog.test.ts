import crypto from 'node:crypto';
import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { workflowApi } from '../helpers/workflows';
import { audited } from '../../services/audit';

/** The audit log (docs/privacy.md "Audit log"): one entry per change, written with it, read by owners and admins only. */

let h: Harness;
let owner: ProjectFixture;
let other: ProjectFixture;
type Account = { userId: string; email: string; cookie: string };
let admin: Account;
let member: Account;
const DOMAIN = 'audit.example.com';

async function signup(verified: boolean): Promise<Account> {
  const email = `u-${crypto.randomBytes(5).toString('hex')}@example.test`;
  const res = await h.http.post('/auth/signup').send({ email, password: 'correct horse battery' });
  expect(res.status).toBe(201);
  if (verified) await h.deps.knex('users').where({ id: res.body.id }).update({ email_verified: true });
  return { userId: res.body.id, email, cookie: (res.headers['set-cookie'] as unknown as string[])[0].split(';')[0] };
}

async function joined(role: string): Promise<Account> {
  const a = await signup(true);
  const res = await h.http.post(`/projects/${owner.projectId}/members`).set('Cookie', owner.cookie).send({ email: a.email, role });
  expect(res.status).toBe(201);
  return a;
}

beforeAll(async () => {
  h = await startHarness();
  [owner, other] = await Promise.all([createProjectFixture(h, 'audited'), createProjectFixture(h, 'other')]);
  await verifiedDomain(h, owner.projectId, DOMAIN);
  admin = await joined('ADMIN');
  member = await joined('MEMBER');
});
afterAll(() => h?.stop());

const log = (cookie: string, projectId: string, query = '') => h.http.get(`/projects/${projectId}/audit${query}`).set('Cookie', cookie);
const key = () => bearer(owner.secretKey);
/** The cookie on a secret-key route, as the dashboard calls it. */
const asDashboard = () => ({ Cookie: owner.cookie, 'X-Project-Id': owner.projectId, Origin: h.config.appUrl });

/** Runs `change` and returns the entries it added to the owner's project (oldest first). */
async function added(change: () => Promise<unknown>) {
  const before = Number((await h.deps.knex('audit_log').where({ project_id: owner.projectId }).max('id as max'))[0].max ?? 0);
  await change();
  const rows = await h.deps.knex('audit_log').where({ project_id: owner.projectId }).andWhere('id', '>', before).orderBy('id');
  return rows.map((r: any) => ({ actor: r.actor, action: r.action, target: { type: r.target_type, id: r.target_id }, details: r.details, ip: r.ip }));
}

const expectStatus = async (res: Promise<{ status: number; body: any }> | { status: number; body: any }, status: number) => {
  const r = await res;
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
};

describe('what writes an entry', () => {
  it('key rotation, project and settings changes name the user or the secret key, and the address', async () => {
    expect(
      await added(() =>
        expectStatus(
          h.http.post(`/users/@me/projects/${owner.projectId}/regenerate-keys`).set('Cookie', owner.cookie).set('X-Forwarded-For', '203.0.113.7'),
          200,
        ).then((b) => Object.assign(owner, { secretKey: b.secretKey })),
      ),
    ).toEqual([{ actor: owner.userId, action: 'keys.rotate', target: { type: 'project', id: owner.projectId }, details: null, ip: '203.0.113.7' }]);
    expect(
      await added(() => expectStatus(h.http.patch(`/users/@me/projects/${owner.projectId}`).set('Cookie', admin.cookie).send({ name: 'renamed' }), 200)),
    ).toEqual([
      expect.objectContaining({
        actor: admin.userId,
        action: 'project.update',
        target: { type: 'project', id: owner.projectId },
        details: { changed: ['name'] },
      }),
    ]);
    expect(await added(() => expectStatus(h.http.patch('/settings').set(key()).send({ timezone: 'Europe/Paris' }), 200))).toEqual([
      expect.objectContaining({ actor: 'secret key', action: 'settings.update', target: { type: 'settings', id: null }, details: { changed: ['timezone'] } }),
    ]);
    expect(await added(() => expectStatus(h.http.patch('/settings').set(asDashboard()).send({ frequencyCap: null }), 200))).toEqual([
      expect.objectContaining({ actor: owner.userId, action: 'settings.update' }),
    ]);
  });

  it('member changes: add, invite, role change, removal, withdrawn invite', async () => {
    const newcomer = await signup(true);
    expect(
      await added(() =>
        expectStatus(h.http.post(`/projects/${owner.projectId}/members`).set('Cookie', admin.cookie).send({ email: newcomer.email, role: 'MEMBER' }), 201),
      ),
    ).toEqual([
      expect.objectContaining({ actor: admin.userId, action: 'member.add', target: { type: 'user', id: newcomer.userId }, details: { role: 'MEMBER' } }),
    ]);
    expect(
      await added(() =>
        expectStatus(h.http.patch(`/projects/${owner.projectId}/members/${newcomer.userId}`).set('Cookie', owner.cookie).send({ role: 'ADMIN' }), 200),
      ),
    ).toEqual([expect.objectContaining({ action: 'member.role', target: { type: 'user', id: newcomer.userId }, details: { role: 'ADMIN' } })]);
    expect(await added(() => expectStatus(h.http.delete(`/projects/${owner.projectId}/members/${newcomer.userId}`).set('Cookie', owner.cookie), 204))).toEqual([
      expect.objectContaining({ action: 'member.remove', target: { type: 'user', id: newcomer.userId }, details: { role: 'ADMIN' } }),
    ]);
    let inviteId = '';
    const invited = await added(async () => {
      inviteId = (
        await expectStatus(
          h.http
            .post(`/projects/${owner.projectId}/members`)
            .set('Cookie', owner.cookie)
            .send({ email: uniqueEmail('invitee'), role: 'MEMBER' }),
          202,
        )
      ).id;
    });
    expect(invited).toEqual([expect.objectContaining({ action: 'member.invite', target: { type: 'invite', id: inviteId }, details: { role: 'MEMBER' } })]);
    // The entry names the invite, never the invited address.
    expect(JSON.stringify(invited)).not.toContain('invitee');
    expect(await added(() => expectStatus(h.http.delete(`/projects/${owner.projectId}/invites/${inviteId}`).set('Cookie', owner.cookie), 204))).toEqual([
      expect.objectContaining({ action: 'invite.withdraw', target: { type: 'invite', id: inviteId } }),
    ]);
  });

  it('domains, deletions of every resource, campaign sends and workflow switches', async () => {
    let domainId = '';
    expect(
      await added(async () => (domainId = (await expectStatus(h.http.post('/domains').set(key()).send({ domain: 'mail.audit-new.example.com' }), 201)).id)),
    ).toEqual([
      expect.objectContaining({ action: 'domain.create', target: { type: 'domain', id: domainId }, details: { domain: 'mail.audit-new.example.com' } }),
    ]);
    expect(await added(() => expectStatus(h.http.delete(`/domains/${domainId}`).set(key()), 204))).toEqual([
      expect.objectContaining({ action: 'domain.delete', target: { type: 'domain', id: domainId } }),
    ]);

    const email = uniqueEmail('gone');
    const contact = await expectStatus(h.http.post('/contacts').set(key()).send({ email }), 201);
    const contactEntries = await added(() => expectStatus(h.http.delete(`/contacts/${contact.id}`).set(key()), 204));
    expect(contactEntries).toEqual([expect.objectContaining({ actor: 'secret key', action: 'contact.delete', target: { type: 'contact', id: contact.id } })]);
    expect(JSON.stringify(contactEntries)).not.toContain(email);

    const template = await expectStatus(
      h.http
        .post('/templates')
        .set(key())
        .send({ name: 't', subject: 's', body: '<p>b</p>', from: `a@${DOMAIN}`, type: 'MARKETING' }),
      201,
    );
    expect(await added(() => expectStatus(h.http.delete(`/templates/${template.id}`).set(key()), 204))).toEqual([
      expect.objectContaining({ action: 'template.delete', target: { type: 'template', id: template.id } }),
    ]);

    const segment = await expectStatus(h.http.post('/segments').set(key()).send({ name: 's', type: 'STATIC' }), 201);
    expect(await added(() => expectStatus(h.http.delete(`/segments/${segment.id}`).set(key()), 204))).toEqual([
      expect.objectContaining({ action: 'segment.delete', target: { type: 'segment', id: segment.id } }),
    ]);

    const topic = await expectStatus(h.http.post('/topics').set(key()).send({ name: 'News' }), 201);
    expect(await added(() => expectStatus(h.http.delete(`/topics/${topic.id}`).set(asDashboard()), 204))).toEqual([
      expect.objectContaining({ actor: owner.userId, action: 'topic.delete', target: { type: 'topic', id: topic.id } }),
    ]);

    const endpoint = await expectStatus(
      h.http
        .post('/webhook-endpoints')
        .set(key())
        .send({ url: 'https://hooks.example.com/in', events: ['email.sent'] }),
      201,
    );
    expect(await added(() => expectStatus(h.http.delete(`/webhook-endpoints/${endpoint.id}`).set(key()), 204))).toEqual([
      expect.objectContaining({ action: 'webhook_endpoint.delete', target: { type: 'webhook_endpoint', id: endpoint.id } }),
    ]);

    const campaign = (body = {}) =>
      expectStatus(
        h.http
          .post('/campaigns')
          .set(key())
          .send({ name: 'c', subject: 'S', body: '<p>b</p>', from: `news@${DOMAIN}`, audienceType: 'ALL', ...body }),
        201,
      ).then((b) => b.data.id as string);
    const draft = await campaign();
    expect(await added(() => expectStatus(h.http.delete(`/campaigns/${draft}`).set(key()), 204))).toEqual([
      expect.objectContaining({ action: 'campaign.delete', target: { type: 'campaign', id: draft } }),
    ]);
    const scheduled = await campaign();
    const at = new Date(Date.now() + 86_400_000).toISOString();
    expect(await added(() => expectStatus(h.http.post(`/campaigns/${scheduled}/send`).set(key()).send({ scheduledFor: at }), 200))).toEqual([
      expect.objectContaining({ action: 'campaign.send', target: { type: 'campaign', id: scheduled }, details: { status: 'SCHEDULED', scheduledFor: at } }),
    ]);
    await expectStatus(h.http.post(`/campaigns/${scheduled}/cancel`).set(key()), 200);

    const wf = workflowApi(h, owner);
    const built = await wf.build('audit.tick', { exit: { type: 'EXIT' } }, [['trigger', 'exit']]);
    expect(await added(() => expectStatus(wf.patch(built.id, { enabled: true }), 200))).toEqual([
      expect.objectContaining({ action: 'workflow.enable', target: { type: 'workflow', id: built.id } }),
    ]);
    expect(await added(() => expectStatus(wf.patch(built.id, { enabled: false }), 200))).toEqual([
      expect.objectContaining({ action: 'workflow.disable', target: { type: 'workflow', id: built.id } }),
    ]);
    expect(await added(() => expectStatus(wf.patch(built.id, { name: 'renamed' }), 200))).toEqual([
      expect.objectContaining({ action: 'workflow.update', target: { type: 'workflow', id: built.id }, details: { changed: ['name'] } }),
    ]);
    expect(await added(() => expectStatus(wf.del(built.id), 204))).toEqual([
      expect.objectContaining({ action: 'workflow.delete', target: { type: 'workflow', id: built.id } }),
    ]);
  });

  it('a change that fails writes no entry', async () => {
    const topic = await expectStatus(h.http.post('/topics').set(key()).send({ name: 'Digest' }), 201);
    const draft = (
      await expectStatus(
        h.http
          .post('/campaigns')
          .set(key())
          .send({ name: 'c', subject: 'S', body: '<p>b</p>', from: `news@${DOMAIN}`, audienceType: 'ALL', topic: topic.id }),
        201,
      )
    ).data.id;
    const wf = workflowApi(h, owner);
    const unrunnable = await wf.build('audit.never', {}, []);
    const nobody = crypto.randomUUID();
    expect(
      await added(async () => {
        await expectStatus(h.http.delete(`/topics/${topic.id}`).set(key()), 409); // a draft campaign names it
        await expectStatus(h.http.delete(`/segments/${nobody}`).set(key()), 404);
        await expectStatus(h.http.delete(`/contacts/${nobody}`).set(key()), 404);
        await expectStatus(wf.patch(unrunnable.id, { enabled: true }), 422); // refused inside the transaction
        await expectStatus(h.http.post(`/campaigns/${draft}/send`).set(key()).send({}), 200);
        await expectStatus(h.http.post(`/campaigns/${draft}/send`).set(key()).send({}), 409); // no longer a DRAFT
        await expectStatus(h.http.patch(`/projects/${owner.projectId}/members/${owner.userId}`).set('Cookie', owner.cookie).send({ role: 'MEMBER' }), 409); // the last owner
        await expectStatus(
          h.http
            .patch('/settings')
            .set(key())
            .send({ doubleOptIn: { enabled: true, from: `a@${DOMAIN}`, templateId: nobody } }),
          422,
        );
      }),
    ).toEqual([expect.objectContaining({ action: 'campaign.send', target: { type: 'campaign', id: draft } })]);
    await expectStatus(h.http.post(`/campaigns/${draft}/cancel`).set(key()), 200);
  });

  it('the entry and the change commit together: an entry that cannot be written takes the change with it', async () => {
    const name = `rollback-${crypto.randomBytes(4).toString('hex')}`;
    await expect(
      audited(
        h.deps.knex,
        { actor: 'system', ip: null },
        (trx) => trx('topics').insert({ id: crypto.randomUUID(), project_id: owner.projectId, name, slug: name }),
        // A project that does not exist: the entry's foreign key fails at insert.
        () => ({ projectId: crypto.randomUUID(), action: 'topic.delete', target: { type: 'topic', id: null } }),
      ),
    ).rejects.toThrow(/foreign key/);
    expect(await h.deps.knex('topics').where({ slug: name }).first()).toBeUndefined();
  });

  it('a project reset is logged, and the log survives it', async () => {
    const before = await h.deps.knex('audit_log').where({ project_id: owner.projectId }).count<{ count: string }[]>('* as count');
    const entries = await added(() => expectStatus(h.http.post(`/users/@me/projects/${owner.projectId}/reset`).set('Cookie', owner.cookie), 200));
    expect(entries).toEqual([expect.objectContaining({ actor: owner.userId, action: 'project.reset', target: { type: 'project', id: owner.projectId } })]);
    expect(entries[0].details.deleted.contacts).toEqual(expect.any(Number));
    const after = await h.deps.knex('audit_log').where({ project_id: owner.projectId }).count<{ count: string }[]>('* as count');
    expect(Number(after[0].count)).toBe(Number(before[0].count) + 1);
  });
});

describe('GET /projects/:id/audit', () => {
  it('owners and admins read it; a member gets 403 in the envelope; an outsider 404', async () => {
    await expectStatus(log(owner.cookie, owner.projectId), 200);
    const page = await expectStatus(log(admin.cookie, owner.projectId), 200);
    expect(page.total).toBeGreaterThan(0);
    const denied = await expectStatus(log(member.cookie, owner.projectId), 403);
    expect(denied).toEqual(
      expect.objectContaining({
        success: false,
        error: expect.objectContaining({ code: 'FORBIDDEN', message: expect.any(String), requestId: expect.any(String) }),
      }),
    );
    await expectStatus(log(other.cookie, owner.projectId), 404);
    // A key is not a member: the log is a dashboard route.
    await expectStatus(h.http.get(`/projects/${owner.projectId}/audit`).set(key()), 401);
  });

  it("another project's entries never show, and its own log is its own", async () => {
    await expectStatus(
      h.http
        .delete(`/contacts/${(await expectStatus(h.http.post('/contacts').set(bearer(other.secretKey)).send({ email: uniqueEmail() }), 201)).id}`)
        .set(bearer(other.secretKey)),
      204,
    );
    const theirs = await expectStatus(log(other.cookie, other.projectId), 200);
    expect(theirs.data.map((e: any) => e.action)).toEqual(['contact.delete', 'project.create']);
    const ours = await expectStatus(log(owner.cookie, owner.projectId, '?pageSize=100'), 200);
    expect(ours.data.some((e: any) => e.target.id === theirs.data[0].target.id)).toBe(false);
  });

  it('pages newest first and filters by action, actor and time; bad filters are 400s', async () => {
    const all = await expectStatus(log(owner.cookie, owner.projectId, '?pageSize=100'), 200);
    // The member's refused read (the test before) is the newest entry: refusals are recorded too.
    expect(all.data[0]).toEqual(
      expect.objectContaining({
        action: 'access.denied',
        actor: member.userId,
        actorEmail: member.email,
        details: expect.objectContaining({ permission: 'audit.read', role: 'MEMBER', route: 'GET /projects/:id/audit' }),
      }),
    );
    expect(all.data[1]).toEqual(expect.objectContaining({ action: 'project.reset', actor: owner.userId, actorEmail: owner.email, at: expect.any(String) }));
    const ats = all.data.map((e: any) => e.at);
    expect([...ats].sort().reverse()).toEqual(ats);

    const second = await expectStatus(log(owner.cookie, owner.projectId, '?pageSize=2&page=2'), 200);
    expect(second).toEqual(expect.objectContaining({ page: 2, pageSize: 2, total: all.total, totalPages: Math.ceil(all.total / 2) }));
    expect(second.data.map((e: any) => e.id)).toEqual(all.data.slice(2, 4).map((e: any) => e.id));

    const rotations = await expectStatus(log(owner.cookie, owner.projectId, '?action=keys.rotate'), 200);
    expect(rotations.data.map((e: any) => e.action)).toEqual(['keys.rotate']);
    const byKey = await expectStatus(log(owner.cookie, owner.projectId, `?actor=${encodeURIComponent('secret key')}&pageSize=100`), 200);
    expect(byKey.total).toBeGreaterThan(0);
    expect(new Set(byKey.data.map((e: any) => e.actor))).toEqual(new Set(['secret key']));
    expect(byKey.data.every((e: any) => e.actorEmail === null)).toBe(true);
    const byAdmin = await expectStatus(log(owner.cookie, owner.projectId, `?actor=${admin.userId}`), 200);
    expect(byAdmin.data.map((e: any) => e.action).sort()).toEqual(['member.add', 'project.update']);

    const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
    expect((await expectStatus(log(owner.cookie, owner.projectId, `?from=${encodeURIComponent(tomorrow)}`), 200)).total).toBe(0);
    expect((await expectStatus(log(owner.cookie, owner.projectId, `?to=${encodeURIComponent(tomorrow)}`), 200)).total).toBe(all.total);

    for (const bad of ['?action=nope', '?from=yesterday', '?page=0', '?pageSize=1000']) {
      const res = await log(owner.cookie, owner.projectId, bad);
      expect([bad, res.status, res.body.error?.code]).toEqual([bad, 400, 'BAD_REQUEST']);
    }
  });
});
