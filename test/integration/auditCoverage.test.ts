import crypto from 'node:crypto';
import Koa from 'koa';
import request from 'supertest';
import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';
import { uniqueEmail, verifiedDomain } from '../helpers/fixtures';
import { buildRouter } from '../../api/router';
import { route } from '../../api/route';
import { errorEnvelope } from '../../api/middleware/errors';
import { audited, nothingChanged } from '../../services/audit';
import { recordAudit } from '../../db/auditLog';

/**
 * Round three of the audit log (docs/security.md): the writes the review found unlogged now write
 * their entry, the listing names what the ids stand for, a MEMBER's refused attempt is an entry of
 * its own, and a route that declares `audit` cannot answer 2xx without one (api/router.ts).
 */

let h: Harness;
let owner: ProjectFixture;
type Account = { userId: string; email: string; cookie: string };
let admin: Account;
let member: Account;

async function signup(): Promise<Account> {
  const email = `u-${crypto.randomBytes(5).toString('hex')}@example.test`;
  const res = await h.http.post('/auth/signup').send({ email, password: 'correct horse battery' });
  expect(res.status).toBe(201);
  await h.deps.knex('users').where({ id: res.body.id }).update({ email_verified: true });
  return { userId: res.body.id, email, cookie: (res.headers['set-cookie'] as unknown as string[])[0].split(';')[0] };
}

async function joined(role: string): Promise<Account> {
  const a = await signup();
  const res = await h.http.post(`/projects/${owner.projectId}/members`).set('Cookie', owner.cookie).send({ email: a.email, role });
  expect(res.status).toBe(201);
  return a;
}

beforeAll(async () => {
  h = await startHarness();
  owner = await createProjectFixture(h, 'Coverage project');
  admin = await joined('ADMIN');
  member = await joined('MEMBER');
});
afterAll(() => h?.stop());

const key = () => bearer(owner.secretKey);
/** The cookie on a secret-key route, as the dashboard calls it. */
const as = (a: { cookie: string }) => ({ Cookie: a.cookie, 'X-Project-Id': owner.projectId, Origin: h.config.appUrl });

const expectStatus = async (res: Promise<{ status: number; body: any }> | { status: number; body: any }, status: number) => {
  const r = await res;
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
};

/** Runs `change` and returns the entries it added, as the audit screen lists them (oldest first). */
async function listed(change: () => Promise<unknown>) {
  const before = Number((await h.deps.knex('audit_log').where({ project_id: owner.projectId }).max('id as max'))[0].max ?? 0);
  await change();
  const page = await expectStatus(h.http.get(`/projects/${owner.projectId}/audit?pageSize=100`).set('Cookie', owner.cookie), 200);
  return (page.data as any[]).filter((e) => Number(e.id) > before).reverse();
}

/** The stored rows themselves, to see what the table keeps (ids, never a contact's address). */
const rowsOf = (ids: string[]) => h.deps.knex('audit_log').whereIn('id', ids).orderBy('id');

describe('the writes the review found unlogged', () => {
  it('webhook endpoints: create, change, re-secret, delete, each naming the URL and the actor', async () => {
    const url = 'https://hooks.example.com/outside';
    let id = '';
    const created = await listed(async () => {
      id = (
        await expectStatus(
          h.http
            .post('/webhook-endpoints')
            .set(as(admin))
            .send({ url, events: ['*'] }),
          201,
        )
      ).id;
    });
    expect(created).toEqual([
      expect.objectContaining({
        actor: admin.userId,
        actorEmail: admin.email,
        action: 'webhook_endpoint.create',
        target: { type: 'webhook_endpoint', id, name: url },
        summary: `Created webhook endpoint ${url} for events *`,
        details: { url, events: ['*'], enabled: true },
      }),
    ]);
    // The secret is in the answer, never in the log.
    const secret = (await h.deps.knex('webhook_endpoints').where({ id }).first('secret')).secret;
    expect(JSON.stringify(await rowsOf(created.map((e) => e.id)))).not.toContain(secret);

    expect(
      await listed(() =>
        expectStatus(
          h.http
            .patch(`/webhook-endpoints/${id}`)
            .set(key())
            .send({ events: ['email.*'] }),
          200,
        ),
      ),
    ).toEqual([
      expect.objectContaining({
        actor: 'secret key',
        action: 'webhook_endpoint.update',
        target: { type: 'webhook_endpoint', id, name: url },
        details: { changed: ['events'], url, events: ['email.*'], enabled: true },
        summary: `Changed webhook endpoint ${url} (events)`,
      }),
    ]);
    expect(await listed(() => expectStatus(h.http.post(`/webhook-endpoints/${id}/rotate-secret`).set(as(owner)), 200))).toEqual([
      expect.objectContaining({
        actor: owner.userId,
        action: 'webhook_endpoint.rotate_secret',
        summary: `Rotated the signing secret of webhook endpoint ${url}`,
      }),
    ]);
    // Gone, the endpoint is still named: by the URL its entry kept.
    expect(await listed(() => expectStatus(h.http.delete(`/webhook-endpoints/${id}`).set(as(admin)), 204))).toEqual([
      expect.objectContaining({
        action: 'webhook_endpoint.delete',
        target: { type: 'webhook_endpoint', id, name: url },
        summary: `Deleted webhook endpoint ${url}`,
      }),
    ]);
  });

  it('suppressions: adding and lifting name the contacts by their current address; the table keeps no address', async () => {
    const known = uniqueEmail('supp');
    const stranger = uniqueEmail('stranger');
    const contact = await expectStatus(h.http.post('/contacts').set(key()).send({ email: known }), 201);
    const added = await listed(() =>
      expectStatus(
        h.http
          .post('/suppressions')
          .set(as(admin))
          .send({ emails: [known, stranger] }),
        201,
      ),
    );
    expect(added).toEqual([
      expect.objectContaining({
        actor: admin.userId,
        action: 'suppression.add',
        target: { type: 'suppression', id: null, name: null },
        contacts: [known],
        details: expect.objectContaining({ added: 2, existing: 0, reason: 'MANUAL', contactIds: [contact.id] }),
        summary: `Suppressed 2 addresses (${known}) (MANUAL)`,
      }),
    ]);
    const lifted = await listed(() => expectStatus(h.http.delete(`/suppressions/${encodeURIComponent(known)}`).set(key()), 204));
    expect(lifted).toEqual([expect.objectContaining({ action: 'suppression.remove', contacts: [known], details: { removed: 1, contactIds: [contact.id] } })]);
    const stored = JSON.stringify(await rowsOf([...added, ...lifted].map((e) => e.id)));
    expect(stored).not.toContain(known);
    expect(stored).not.toContain(stranger);
    // Nothing changed is still an attempt someone made: recorded (200, every address was there).
    expect(
      await listed(() =>
        expectStatus(
          h.http
            .post('/suppressions')
            .set(key())
            .send({ emails: [stranger] }),
          200,
        ),
      ),
    ).toEqual([expect.objectContaining({ action: 'suppression.add', details: expect.objectContaining({ added: 0, existing: 1 }) })]);
  });

  it('bulk subscribe, unsubscribe, delete and import: one entry per job, naming the job and its size', async () => {
    const ids = await Promise.all(
      [1, 2].map(
        async () =>
          (
            await expectStatus(
              h.http
                .post('/contacts')
                .set(key())
                .send({ email: uniqueEmail('bulk') }),
              201,
            )
          ).id as string,
      ),
    );
    for (const [path, action, summary] of [
      ['bulk-unsubscribe', 'contact.bulk_unsubscribe', 'Unsubscribed 2 contacts in bulk'],
      ['bulk-subscribe', 'contact.bulk_subscribe', 'Subscribed 2 contacts in bulk'],
      ['bulk-delete', 'contact.bulk_delete', 'Deleted 2 contacts in bulk'],
    ]) {
      let jobId = '';
      const entries = await listed(async () => {
        jobId = (await expectStatus(h.http.post(`/contacts/${path}`).set(as(member)).send({ contactIds: ids }), 202)).jobId;
      });
      expect(entries).toEqual([
        expect.objectContaining({ actor: member.userId, action, target: { type: 'job', id: jobId, name: null }, details: { contacts: 2 }, summary }),
      ]);
    }
    const imported = await listed(() =>
      expectStatus(
        h.http
          .post('/contacts/import')
          .set(key())
          .attach('file', Buffer.from(`email\n${uniqueEmail('imp')}\n${uniqueEmail('imp')}\n${uniqueEmail('imp')}\n`), 'contacts.csv'),
        202,
      ),
    );
    expect(imported).toEqual([
      expect.objectContaining({ action: 'contact.import', details: { contacts: 3 }, summary: 'Imported contacts from a CSV file (3 rows)' }),
    ]);
  });

  it('deleting a contact field or an event name names the field and the event', async () => {
    const email = uniqueEmail('field');
    await expectStatus(
      h.http
        .post('/contacts')
        .set(key())
        .send({ email, data: { doomed: 1 } }),
      201,
    );
    await expectStatus(h.http.post('/events/track').set(key()).send({ email, event: 'doomed.event' }), 200);
    expect(await listed(() => expectStatus(h.http.delete('/contacts/fields/data.doomed').set(as(member)), 200))).toEqual([
      expect.objectContaining({
        actor: member.userId,
        action: 'contact_field.delete',
        target: { type: 'contact_field', id: 'data.doomed', name: 'data.doomed' },
        summary: 'Deleted the contact field data.doomed',
      }),
    ]);
    expect(await listed(() => expectStatus(h.http.delete('/events/doomed.event').set(key()), 204))).toEqual([
      expect.objectContaining({
        action: 'event.delete',
        target: { type: 'event', id: 'doomed.event', name: 'doomed.event' },
        summary: 'Deleted every event named doomed.event',
      }),
    ]);
  });

  it('topics: create and change, named by their current name', async () => {
    let id = '';
    expect(
      await listed(async () => {
        id = (await expectStatus(h.http.post('/topics').set(key()).send({ name: 'Product news' }), 201)).id;
      }),
    ).toEqual([
      expect.objectContaining({ action: 'topic.create', target: { type: 'topic', id, name: 'Product news' }, summary: 'Created topic Product news' }),
    ]);
    expect(await listed(() => expectStatus(h.http.patch(`/topics/${id}`).set(as(member)).send({ name: 'Releases' }), 200))).toEqual([
      expect.objectContaining({
        action: 'topic.update',
        target: { type: 'topic', id, name: 'Releases' },
        details: { changed: ['name'] },
        summary: 'Changed topic Releases (name)',
      }),
    ]);
  });

  it('billing limits and a new project', async () => {
    expect(
      await listed(() =>
        expectStatus(h.http.put(`/users/@me/projects/${owner.projectId}/billing-limits`).set('Cookie', admin.cookie).send({ emails: 5000 }), 200),
      ),
    ).toEqual([
      expect.objectContaining({
        actor: admin.userId,
        action: 'billing.limits',
        target: { type: 'project', id: owner.projectId, name: 'Coverage project' },
        details: { changed: ['emails'], emails: 5000, contacts: null },
        summary: 'Set billing limits: emails 5000, contacts no cap',
      }),
    ]);
    const created = await expectStatus(h.http.post('/users/@me/projects').set('Cookie', admin.cookie).send({ name: 'Side project' }), 201);
    const page = await expectStatus(h.http.get(`/projects/${created.id}/audit`).set('Cookie', admin.cookie), 200);
    expect(page.project).toEqual({ id: created.id, name: 'Side project' });
    expect(page.data).toEqual([
      expect.objectContaining({
        actor: admin.userId,
        actorEmail: admin.email,
        action: 'project.create',
        target: { type: 'project', id: created.id, name: 'Side project' },
      }),
    ]);
  });
});

describe('drafts: templates, campaigns, segments and workflows are audited from creation on', () => {
  it('create, change, duplicate (and a campaign cancelled), each named by its current name', async () => {
    await verifiedDomain(h, owner.projectId, 'drafts.example.com');
    let template = '';
    expect(
      await listed(async () => {
        template = (
          await expectStatus(h.http.post('/templates').set(key()).send({ name: 'Welcome', subject: 'Hi', body: '<p>x</p>', from: 'a@drafts.example.com' }), 201)
        ).id;
      }),
    ).toEqual([
      expect.objectContaining({ action: 'template.create', target: { type: 'template', id: template, name: 'Welcome' }, summary: 'Created template Welcome' }),
    ]);
    expect(await listed(() => expectStatus(h.http.patch(`/templates/${template}`).set(as(member)).send({ subject: 'Hello' }), 200))).toEqual([
      expect.objectContaining({
        actor: member.userId,
        action: 'template.update',
        details: { changed: ['subject'] },
        summary: 'Changed template Welcome (subject)',
      }),
    ]);
    expect(await listed(() => expectStatus(h.http.post(`/templates/${template}/duplicate`).set(key()), 201))).toEqual([
      expect.objectContaining({ action: 'template.create', details: expect.objectContaining({ duplicateOf: template }) }),
    ]);

    let campaign = '';
    const body = { name: 'Autumn', subject: 'S', body: '<p>b</p>', from: 'news@drafts.example.com', audienceType: 'ALL' };
    expect(
      await listed(async () => {
        campaign = (await expectStatus(h.http.post('/campaigns').set(key()).send(body), 201)).data.id;
      }),
    ).toEqual([expect.objectContaining({ action: 'campaign.create', target: { type: 'campaign', id: campaign, name: 'Autumn' } })]);
    expect(
      await listed(() =>
        expectStatus(
          h.http
            .put(`/campaigns/${campaign}`)
            .set(key())
            .send({ ...body, name: 'Winter' }),
          200,
        ),
      ),
    ).toEqual([
      expect.objectContaining({ action: 'campaign.update', target: { type: 'campaign', id: campaign, name: 'Winter' }, summary: 'Changed campaign Winter' }),
    ]);
    expect(await listed(() => expectStatus(h.http.post(`/campaigns/${campaign}/duplicate`).set(key()), 201))).toEqual([
      expect.objectContaining({ action: 'campaign.create', details: expect.objectContaining({ duplicateOf: campaign }) }),
    ]);
    await expectStatus(
      h.http
        .post(`/campaigns/${campaign}/send`)
        .set(key())
        .send({ scheduledFor: new Date(Date.now() + 86_400_000).toISOString() }),
      200,
    );
    expect(await listed(() => expectStatus(h.http.post(`/campaigns/${campaign}/cancel`).set(key()), 200))).toEqual([
      expect.objectContaining({ action: 'campaign.cancel', summary: 'Cancelled campaign Winter' }),
    ]);

    let segment = '';
    expect(
      await listed(async () => {
        segment = (await expectStatus(h.http.post('/segments').set(key()).send({ name: 'VIPs', type: 'STATIC' }), 201)).id;
      }),
    ).toEqual([expect.objectContaining({ action: 'segment.create', target: { type: 'segment', id: segment, name: 'VIPs' } })]);
    expect(await listed(() => expectStatus(h.http.patch(`/segments/${segment}`).set(key()).send({ name: 'Very VIPs' }), 200))).toEqual([
      expect.objectContaining({ action: 'segment.update', details: { changed: ['name'] }, summary: 'Changed segment Very VIPs (name)' }),
    ]);

    let workflow = '';
    expect(
      await listed(async () => {
        workflow = (await expectStatus(h.http.post('/workflows').set(key()).send({ name: 'Onboarding', eventName: 'signed.up' }), 201)).id;
      }),
    ).toEqual([
      expect.objectContaining({
        action: 'workflow.create',
        target: { type: 'workflow', id: workflow, name: 'Onboarding' },
        summary: 'Created workflow Onboarding',
      }),
    ]);
  });
});

describe('roles: a MEMBER is refused, and the refusal is an entry', () => {
  const CELLS: Array<{ name: string; action: string; run: (a: Account | null) => Promise<{ status: number; body: any }>; ok: number }> = [
    {
      name: 'create a webhook endpoint',
      action: 'webhook_endpoint.create',
      run: (a) =>
        h.http
          .post('/webhook-endpoints')
          .set(a ? as(a) : key())
          .send({ url: 'https://hooks.example.com/x', events: ['*'] }),
      ok: 201,
    },
    {
      name: 'add a suppression',
      action: 'suppression.add',
      run: (a) =>
        h.http
          .post('/suppressions')
          .set(a ? as(a) : key())
          .send({ emails: [uniqueEmail('r')] }),
      ok: 201,
    },
    {
      name: 'change the settings',
      action: 'settings.update',
      run: (a) =>
        h.http
          .patch('/settings')
          .set(a ? as(a) : key())
          .send({ timezone: 'Europe/Paris' }),
      ok: 200,
    },
    {
      name: 'add a domain',
      action: 'domain.create',
      run: (a) =>
        h.http
          .post('/domains')
          .set(a ? as(a) : key())
          .send({ domain: `${crypto.randomBytes(4).toString('hex')}.example.com` }),
      ok: 201,
    },
  ];

  it.each(CELLS)('$name: MEMBER 403 with an access.denied entry; ADMIN and the key allowed', async ({ action, run, ok }) => {
    const denied = await listed(async () => {
      const res = await run(member);
      expect([res.status, res.body.error?.code]).toEqual([403, 'FORBIDDEN']);
    });
    expect(denied).toEqual([
      expect.objectContaining({
        actor: member.userId,
        actorEmail: member.email,
        action: 'access.denied',
        details: expect.objectContaining({ action, role: 'MEMBER' }),
        summary: `Refused (role MEMBER): ${action}`,
      }),
    ]);
    expect(await listed(async () => expect((await run(admin)).status).toBe(ok))).toEqual([expect.objectContaining({ actor: admin.userId, action })]);
    expect((await run(null)).status).toBe(ok);
  });

  it('a refused change to one endpoint names it; the endpoint is unchanged', async () => {
    const url = 'https://hooks.example.com/kept';
    const e = await expectStatus(
      h.http
        .post('/webhook-endpoints')
        .set(key())
        .send({ url, events: ['email.sent'] }),
      201,
    );
    const denied = await listed(async () => {
      await expectStatus(h.http.patch(`/webhook-endpoints/${e.id}`).set(as(member)).send({ url: 'https://evil.example.net/' }), 403);
      await expectStatus(h.http.post(`/webhook-endpoints/${e.id}/rotate-secret`).set(as(member)), 403);
      await expectStatus(h.http.delete(`/webhook-endpoints/${e.id}`).set(as(member)), 403);
    });
    expect(denied.map((d) => [d.action, d.details.action, d.target])).toEqual([
      ['access.denied', 'webhook_endpoint.update', { type: 'webhook_endpoint', id: e.id, name: url }],
      ['access.denied', 'webhook_endpoint.rotate_secret', { type: 'webhook_endpoint', id: e.id, name: url }],
      ['access.denied', 'webhook_endpoint.delete', { type: 'webhook_endpoint', id: e.id, name: url }],
    ]);
    expect((await h.deps.knex('webhook_endpoints').where({ id: e.id }).first()).url).toBe(url);
  });

  it('a session route refusal is recorded as well (rotating the keys)', async () => {
    const denied = await listed(() => expectStatus(h.http.post(`/users/@me/projects/${owner.projectId}/regenerate-keys`).set('Cookie', member.cookie), 403));
    expect(denied).toEqual([
      expect.objectContaining({
        actor: member.userId,
        action: 'access.denied',
        target: { type: 'project', id: owner.projectId, name: 'Coverage project' },
        details: expect.objectContaining({ action: 'keys.rotate', permission: 'keys.rotate', role: 'MEMBER' }),
      }),
    ]);
  });
});

describe('refusals by the member rules (db/members.ts) are recorded too', () => {
  it('an ADMIN touching an OWNER, and a MEMBER removing someone else', async () => {
    const second = await joined('OWNER');
    const other = await joined('MEMBER');
    const denied = await listed(async () => {
      await expectStatus(h.http.patch(`/projects/${owner.projectId}/members/${second.userId}`).set('Cookie', admin.cookie).send({ role: 'MEMBER' }), 403);
      await expectStatus(h.http.delete(`/projects/${owner.projectId}/members/${other.userId}`).set('Cookie', member.cookie), 403);
    });
    expect(denied).toEqual([
      expect.objectContaining({
        actor: admin.userId,
        action: 'access.denied',
        target: { type: 'user', id: second.userId, name: second.email },
        details: expect.objectContaining({ action: 'member.role', permission: 'owners.manage', role: 'ADMIN' }),
      }),
      expect.objectContaining({
        actor: member.userId,
        action: 'access.denied',
        target: { type: 'user', id: other.userId, name: other.email },
        details: expect.objectContaining({ action: 'member.remove', permission: 'members.manage', role: 'MEMBER' }),
      }),
    ]);
  });
});

describe('the runtime check (api/router.ts, on in every test run)', () => {
  /** A tiny app of made-up routes, on the real database: what the check does with a route that lies. */
  function appOf(write: 'none' | 'committed' | 'rolled back' | 'said unchanged') {
    const app = new Koa<any, any>();
    app.context.deps = h.deps;
    app.silent = true;
    app.use(errorEnvelope);
    const projectId = owner.projectId;
    const entry = { projectId, action: 'topic.create' as const, target: { type: 'topic' as const, id: null } };
    const r = route({
      method: 'post',
      path: '/declares-audit',
      auth: 'none',
      tag: 'tests',
      summary: 'declares an audit action',
      audit: 'topic.create',
      async handler(ctx) {
        if (write === 'said unchanged') nothingChanged('a test of the one way past the check');
        if (write === 'committed')
          await audited(
            h.deps.knex,
            { actor: 'system', ip: null },
            async () => 1,
            () => entry,
          );
        // Written, then rolled back with its change, and the handler answers 2xx anyway.
        if (write === 'rolled back')
          await h.deps.knex
            .transaction(async (trx) => {
              await recordAudit(trx, { ...entry, actor: 'system' });
              throw new Error('the change failed');
            })
            .catch(() => undefined);
        ctx.status = 204;
      },
    });
    app.use(buildRouter([r]).routes());
    return request(app.callback());
  }

  it('fails a 2xx of a route that declares audit and committed no entry; passes one that did', async () => {
    expect((await appOf('none').post('/declares-audit')).status).toBe(500);
    expect((await appOf('rolled back').post('/declares-audit')).status).toBe(500);
    expect((await appOf('committed').post('/declares-audit')).status).toBe(204);
    // A handler that says, by name, that nothing changed (an empty patch) is let through.
    expect((await appOf('said unchanged').post('/declares-audit')).status).toBe(204);
    expect((await h.http.patch('/settings').set(key()).send({})).status).toBe(200);
  });
});
