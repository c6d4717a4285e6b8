import crypto from 'node:crypto';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { workflowApi } from '../helpers/workflows';
import { linksFor } from '../../lib/unsubscribe';
import { providerEvents } from '../../services/providerEvents';
import { deleteProject } from '../../db/projects';

/** The consent record (docs/privacy.md): one row per change of `subscribed` or a topic state, whatever the path. */

let h: Harness;
let p: ProjectFixture;
const DOMAIN = 'consent.example.com';

beforeAll(async () => {
  h = await startHarness({ worker: true });
  p = await createProjectFixture(h);
  await verifiedDomain(h, p.projectId, DOMAIN);
});
afterAll(() => h?.stop());

const key = () => bearer(p.secretKey);
const pathOf = (url: string) => new URL(url).pathname;

type Rec = {
  scope: string;
  topic: { id: string; slug: string } | null;
  value: boolean;
  source: string;
  at: string;
  ip: string | null;
  userAgent: string | null;
};

async function record(contactId: string): Promise<Rec[]> {
  const res = await h.http.get(`/contacts/${contactId}/consent`).set(key());
  expect(res.status).toBe(200);
  return res.body.data;
}
/** The record without the timestamps, for comparisons. */
const brief = async (contactId: string) => (await record(contactId)).map((r) => [r.scope, r.topic?.slug ?? null, r.value, r.source]);

async function contact(body: Record<string, unknown>) {
  const res = await h.http.post('/contacts').set(key()).send(body);
  expect([200, 201]).toContain(res.status);
  return res.body as { id: string; email: string };
}

let topicsMade = false;
async function topics() {
  if (topicsMade) return;
  topicsMade = true;
  for (const name of ['News', 'Digest']) expect((await h.http.post('/topics').set(key()).send({ name })).status).toBe(201);
}

describe('GET /contacts/:id/consent', () => {
  it('records creation and each change through the API and the dashboard, global and per topic, and nothing for a no-op', async () => {
    await topics();
    const c = await contact({ email: uniqueEmail('api'), topics: { news: true } });
    await h.http.patch(`/contacts/${c.id}`).set(key()).send({ subscribed: false });
    await h.http
      .patch(`/contacts/${c.id}`)
      .set(key())
      .send({ subscribed: false, data: { plan: 'x' } });
    await h.http
      .patch(`/contacts/${c.id}`)
      .set(key())
      .send({ topics: { news: true } });
    // The dashboard's door: the session cookie with the project's id.
    const dash = await h.http
      .patch(`/contacts/${c.id}`)
      .set('Cookie', p.cookie)
      .set('X-Project-Id', p.projectId)
      .send({ subscribed: true, topics: { digest: false } });
    expect(dash.status).toBe(200);
    expect(await brief(c.id)).toEqual([
      ['global', null, true, 'api'],
      ['topic', 'news', true, 'api'],
      ['global', null, false, 'api'],
      ['global', null, true, 'dashboard'],
      ['topic', 'digest', false, 'dashboard'],
    ]);
    const [first] = await record(c.id);
    expect(first).toMatchObject({ ip: null, userAgent: null });
    expect(Date.parse(first.at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it("pages, 404s for another project's contact, and goes with the contact", async () => {
    const c = await contact({ email: uniqueEmail('page') });
    for (const subscribed of [false, true, false]) await h.http.patch(`/contacts/${c.id}`).set(key()).send({ subscribed });
    const page = await h.http.get(`/contacts/${c.id}/consent`).query({ page: 2, pageSize: 3 }).set(key());
    expect(page.body).toMatchObject({ page: 2, pageSize: 3, total: 4, totalPages: 2 });
    expect(page.body.data.map((r: Rec) => r.value)).toEqual([false]);
    const other = await createProjectFixture(h);
    expect((await h.http.get(`/contacts/${c.id}/consent`).set(bearer(other.secretKey))).status).toBe(404);
    expect((await h.http.delete(`/contacts/${c.id}`).set(key())).status).toBe(204);
    const [{ n }] = await h.deps.knex('consent_records').where({ contact_id: c.id }).count('* as n');
    expect(Number(n)).toBe(0);
  });

  it('references its contact only (one foreign-key check per record, not two), and goes with its project through the contact', async () => {
    const fks = await h.deps.knex.raw(
      `SELECT confrelid::regclass::text AS parent FROM pg_constraint WHERE conrelid = 'consent_records'::regclass AND contype = 'f'`,
    );
    expect(fks.rows.map((r: { parent: string }) => r.parent)).toEqual(['contacts']);
    const other = await createProjectFixture(h);
    const made = await h.http
      .post('/contacts')
      .set(bearer(other.secretKey))
      .send({ email: uniqueEmail('gone'), subscribed: true });
    expect(made.status).toBe(201);
    const count = async () => Number((await h.deps.knex('consent_records').where({ project_id: other.projectId }).count('* as n'))[0].n);
    expect(await count()).toBe(1);
    await deleteProject(h.deps.knex, other.projectId);
    expect(await count()).toBe(0);
  });

  it('records /v1/send, /v1/track, workflow UPDATE_CONTACT, import, bulk, bounce and complaint with their sources', async () => {
    await topics();
    // /v1/send: a new recipient starts unsubscribed; that is its first record.
    const sendTo = uniqueEmail('send');
    const sent = await h.http
      .post('/v1/send')
      .set(key())
      .send({ to: sendTo, subject: 's', body: '<p>b</p>', from: `tx@${DOMAIN}`, topics: { digest: true } });
    expect(sent.status).toBe(200);
    const sentId = sent.body.data.emails[0].contact.id;
    expect(await brief(sentId)).toEqual([
      ['global', null, false, 'send'],
      ['topic', 'digest', true, 'send'],
    ]);

    const tracked = await h.http.post('/v1/track').set(bearer(p.publicKey)).send({ email: sendTo, event: 'joined', subscribed: true });
    expect(tracked.status).toBe(200);
    expect((await brief(sentId)).at(-1)).toEqual(['global', null, true, 'track']);

    // A workflow's UPDATE_CONTACT step.
    const wf = workflowApi(h, p);
    const built = await wf.build('consent.flow', { update: { type: 'UPDATE_CONTACT', config: { subscribed: false } } }, [['trigger', 'update']], {
      enabled: true,
    });
    expect((await wf.track(sendTo, 'consent.flow')).status).toBe(200);
    const ex = await wf.executionOf(built.id, sentId);
    await wf.until(built.id, ex.id, ['COMPLETED']);
    expect((await brief(sentId)).at(-1)).toEqual(['global', null, false, 'workflow']);

    // A CSV import creates and a bulk job flips.
    const imported = uniqueEmail('import');
    const job = await h.http
      .post('/contacts/import')
      .set(key())
      .attach('file', Buffer.from(`email,subscribed\n${imported},yes\n`), 'contacts.csv');
    expect(job.status).toBe(202);
    const importedContact = await eventually(async () => h.deps.knex('contacts').where({ project_id: p.projectId, email: imported }).first());
    expect(await brief(importedContact.id)).toEqual([['global', null, true, 'import']]);
    const bulk = await h.http
      .post('/contacts/bulk-unsubscribe')
      .set(key())
      .send({ contactIds: [importedContact.id] });
    expect(bulk.status).toBe(202);
    await eventually(async () => (await brief(importedContact.id)).length === 2);
    expect((await brief(importedContact.id)).at(-1)).toEqual(['global', null, false, 'bulk']);

    // Provider events: a hard bounce and a complaint unsubscribe.
    const events = providerEvents(h.deps);
    for (const [kind, source] of [
      ['bounce', 'bounce'],
      ['spamreport', 'complaint'],
    ]) {
      const c = await contact({ email: uniqueEmail(kind) });
      const mail = await h.http
        .post('/v1/send')
        .set(key())
        .send({ to: c.email, subject: 's', body: '<p>b</p>', from: `tx@${DOMAIN}` });
      const emailId = mail.body.data.emails[0].email;
      await eventually(async () => (await h.deps.knex('emails').where({ id: emailId }).first('status'))?.status === 'SENT');
      const r = await events.applyProviderEvents([{ provider: 'sendgrid', id: crypto.randomUUID(), kind, emailId, at: new Date() }]);
      expect(r.applied).toBe(1);
      expect((await brief(c.id)).at(-1)).toEqual(['global', null, false, source]);
    }
  });

  it("records link, one-click and preference-center changes with the browser's address and User-Agent", async () => {
    await topics();
    const c = await contact({ email: uniqueEmail('links') });
    const news = (await h.http.get('/topics').set(key())).body.data.find((t: any) => t.slug === 'news');
    const links = linksFor(h.config, p.projectId, c.id);
    const topicLinks = linksFor(h.config, p.projectId, c.id, news.id);
    const ua = 'Mozilla/5.0 (consent test)';

    // GETs (link scanners) record nothing.
    for (const url of [links.unsubscribeUrl, links.manageUrl, topicLinks.unsubscribeUrl]) await h.http.get(pathOf(url)).set('User-Agent', ua);
    expect(await brief(c.id)).toHaveLength(1);

    await h.http
      .post(pathOf(topicLinks.unsubscribeUrl))
      .set('User-Agent', 'MailProvider/1.0')
      .set('X-Forwarded-For', '203.0.113.9')
      .type('form')
      .send('List-Unsubscribe=One-Click');
    await h.http
      .post(pathOf(links.manageUrl))
      .set('User-Agent', ua)
      .set('X-Forwarded-For', '198.51.100.7')
      .type('form')
      .send(`shown=${news.id}&topics=${news.id}`);
    await h.http.post(pathOf(links.unsubscribeUrl)).set('User-Agent', ua).set('X-Forwarded-For', '198.51.100.7').type('form').send('');
    await h.http.post(pathOf(links.subscribeUrl)).set('User-Agent', ua).set('X-Forwarded-For', '198.51.100.7').type('form').send('');

    const rec = await record(c.id);
    expect(rec.map((r) => [r.scope, r.topic?.slug ?? null, r.value, r.source, r.ip, r.userAgent])).toEqual([
      ['global', null, true, 'api', null, null],
      ['topic', 'news', false, 'one-click', '203.0.113.9', 'MailProvider/1.0'],
      ['topic', 'news', true, 'link', '198.51.100.7', ua],
      ['global', null, false, 'link', '198.51.100.7', ua],
      ['global', null, true, 'link', '198.51.100.7', ua],
    ]);
  });

  it('keeps a topic record (id and slug) after the topic is deleted', async () => {
    const t = await h.http.post('/topics').set(key()).send({ name: 'Short lived' });
    const c = await contact({ email: uniqueEmail('gone'), topics: { 'short-lived': true } });
    expect((await h.http.delete(`/topics/${t.body.id}`).set(key())).status).toBe(204);
    expect((await record(c.id)).at(-1)).toMatchObject({ scope: 'topic', topic: { id: t.body.id, slug: 'short-lived' }, value: true, source: 'api' });
  });
});
