import Parser from 'rss-parser';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { startSmtpSink, SmtpSink } from '../helpers/smtpSink';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { pruneEmailBodies } from '../../db/retention';

/**
 * "View in browser" and the public archive (docs/campaigns.md): a campaign goes through the real
 * worker and SMTP transport into the local relay; the `{{ viewInBrowserUrl }}` link of the mail the
 * relay got is then opened, forged, and opened again after erasure and retention; the archive lists
 * one project's public SENT campaigns only, rendered for nobody in particular.
 */

let h: Harness;
let sink: SmtpSink;
const DOMAIN = 'growth.example.com';
const FROM = `news@${DOMAIN}`;
const BODY =
  '<html><body><p>Hello {{ firstName ?? "reader" }}, you are {{ email }}.</p>' +
  '<p><a href="https://example.com/post">Read the post</a></p>' +
  '<p><a href="{{ viewInBrowserUrl }}">View in browser</a> <a href="{{ unsubscribeUrl }}">Unsubscribe</a></p></body></html>';

beforeAll(async () => {
  sink = await startSmtpSink();
  h = await startHarness({ worker: true, env: { EMAIL_TRANSPORT: 'smtp', SMTP_URL: sink.url } });
});
afterAll(async () => {
  await h?.stop();
  await sink?.stop();
});

async function project(name: string): Promise<ProjectFixture & { slug: string }> {
  const fx = await createProjectFixture(h, name);
  await verifiedDomain(h, fx.projectId, DOMAIN);
  const listed = await h.http.get('/users/@me/projects').set('Cookie', fx.cookie);
  const slug = listed.body.find((p: { id: string }) => p.id === fx.projectId).slug as string;
  return { ...fx, slug };
}

async function campaign(fx: ProjectFixture, fields: Record<string, unknown>): Promise<string> {
  const res = await h.http
    .post('/campaigns')
    .set(bearer(fx.secretKey))
    .send({ name: 'Issue', subject: 'Issue for {{ firstName ?? "you" }}', body: BODY, from: FROM, audienceType: 'ALL', ...fields });
  expect(res.status).toBe(201);
  return res.body.data.id;
}

async function sendAndWait(fx: ProjectFixture, id: string): Promise<void> {
  expect((await h.http.post(`/campaigns/${id}/send`).set(bearer(fx.secretKey)).send({})).status).toBe(200);
  await eventually(async () => (await h.http.get(`/campaigns/${id}`).set(bearer(fx.secretKey))).body.status === 'SENT');
}

const viewPath = (html: string) => {
  const m = html.match(/href="https?:\/\/[^"/]+(\/v\/[^"]+)"/);
  if (!m) throw new Error('no view-in-browser link in the mail');
  return m[1];
};

describe('view in browser', () => {
  let fx: ProjectFixture & { slug: string };
  let contactId: string;
  let address: string;
  let path: string;
  let emailId: string;

  beforeAll(async () => {
    fx = await project('View in browser');
    address = uniqueEmail('ada');
    const c = await h.http
      .post('/contacts')
      .set(bearer(fx.secretKey))
      .send({ email: address, data: { firstName: 'Ada' } });
    contactId = c.body.id;
    const id = await campaign(fx, { tracking: { opens: true, clicks: true } });
    await sendAndWait(fx, id);
    const mail = await eventually(async () => sink.mailsTo(address)[0]);
    const parsed = await sink.parse(mail);
    const html = String(parsed.html);
    expect(html).toContain('Hello Ada');
    // The mail itself is tracked: the page must not be.
    expect(html).toMatch(/\/t\/o\//);
    path = viewPath(html);
    emailId = (await h.deps.knex('emails').where({ campaign_id: id, contact_id: contactId }).first('id')).id;
  });

  it("renders the recipient's email as they received it, read-only, with the public pages' headers and no open counted", async () => {
    const res = await h.http.get(path);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toMatch(/default-src 'none'/);
    expect(res.headers['content-security-policy']).not.toMatch(/script-src/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.text).toContain('Hello Ada');
    expect(res.text).toContain(`you are ${address}`);
    expect(res.text).toContain('View in browser');
    expect(res.text).not.toMatch(/\/t\/o\//);
    const row = await h.deps.knex('emails').where({ id: emailId }).first('status', 'opened_at');
    expect(row.opened_at).toBeNull();
    expect(row.status).not.toBe('OPENED');
  });

  it('answers a 404 page to a forged or malformed token', async () => {
    const [payload, signature] = path.slice('/v/'.length).split('.');
    const flipped = `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
    for (const bad of [`/v/${payload}.${flipped}`, `/v/${payload}`, '/v/not-a-token', `/v/${payload}.${signature}.x`]) {
      const res = await h.http.get(bad);
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
    }
  });

  it('answers a 410 page once the contact is erased', async () => {
    expect((await h.http.delete(`/contacts/${contactId}?erase=true`).set(bearer(fx.secretKey))).status).toBe(204);
    const res = await h.http.get(path);
    expect(res.status).toBe(410);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).not.toContain('Ada');
  });

  it("answers a 410 page once retention pruned the email's body", async () => {
    const other = await project('Retention view');
    const to = uniqueEmail('kept');
    await h.http
      .post('/contacts')
      .set(bearer(other.secretKey))
      .send({ email: to, data: { firstName: 'Grace' } });
    await sendAndWait(other, await campaign(other, {}));
    const mail = await eventually(async () => sink.mailsTo(to)[0]);
    const link = viewPath(String((await sink.parse(mail)).html));
    expect((await h.http.get(link)).text).toContain('Hello Grace');
    await h.deps.knex.transaction((trx) => pruneEmailBodies(trx, other.projectId, new Date(Date.now() + 60_000), 100));
    expect((await h.http.get(link)).status).toBe(410);
  });
});

describe('the brand footer', () => {
  const footerDoc = (footer: Record<string, unknown>) => ({
    version: 1,
    settings: {},
    blocks: [
      { id: 'h', type: 'heading', text: 'Hello {{ firstName ?? "reader" }}' },
      { id: 'f', type: 'footer', ...footer },
    ],
  });

  it('carries a "View in browser" link by default: a block email sent to a contact opens at its /v/<token> page', async () => {
    const fx = await project('Footer view');
    const to = uniqueEmail('lin');
    await h.http
      .post('/contacts')
      .set(bearer(fx.secretKey))
      .send({ email: to, data: { firstName: 'Lin' } });
    const t = await h.http
      .post('/templates')
      .set(bearer(fx.secretKey))
      .send({ name: 'Blocks', subject: 'Blocks', from: FROM, editor: 'blocks', document: footerDoc({}) });
    expect(t.status).toBe(201);
    expect(t.body.body).toContain('href="{{ viewInBrowserUrl }}"');
    // The campaign takes the template's compiled HTML, as "Start from a template" does.
    const id = await campaign(fx, { body: t.body.body, subject: 'Blocks' });
    await sendAndWait(fx, id);
    const html = String((await sink.parse(await eventually(async () => sink.mailsTo(to)[0]))).html);
    expect(html).toMatch(/>View in browser<\/a>/);
    const page = await h.http.get(viewPath(html));
    expect(page.status).toBe(200);
    expect(page.text).toContain('Hello Lin');
  });

  it('leaves the link out of a footer block with viewInBrowser: false', async () => {
    const fx = await project('Footer no view');
    const t = await h.http
      .post('/templates')
      .set(bearer(fx.secretKey))
      .send({ name: 'Blocks', subject: 'Blocks', from: FROM, editor: 'blocks', document: footerDoc({ viewInBrowser: false }) });
    expect(t.status).toBe(201);
    expect(t.body.body).not.toContain('viewInBrowserUrl');
    expect(t.body.body).toContain('href="{{ unsubscribeUrl }}"');
  });
});

describe('public archive', () => {
  let a: ProjectFixture & { slug: string };
  let b: ProjectFixture & { slug: string };
  let publicId: string;
  let privateId: string;
  let draftId: string;
  let otherProjectId: string;
  let reader: string;

  beforeAll(async () => {
    a = await project('Archive Weekly');
    b = await project('Archive Weekly');
    expect(a.slug).toMatch(/^archive-weekly/);
    expect(b.slug).not.toBe(a.slug);
    reader = uniqueEmail('reader');
    await h.http
      .post('/contacts')
      .set(bearer(a.secretKey))
      .send({ email: reader, data: { firstName: 'Linus' } });
    await h.http
      .post('/contacts')
      .set(bearer(b.secretKey))
      .send({ email: uniqueEmail('b'), data: { firstName: 'Bea' } });
    publicId = await campaign(a, { name: 'Public one', archive: true, tracking: { opens: true, clicks: true } });
    privateId = await campaign(a, { name: 'Private one', subject: 'Private news' });
    draftId = await campaign(a, { name: 'Draft one', subject: 'Draft news', archive: true });
    otherProjectId = await campaign(b, { name: 'Other project', subject: 'Other news', archive: true });
    await sendAndWait(a, publicId);
    await sendAndWait(a, privateId);
    await sendAndWait(b, otherProjectId);
  });

  it('takes archive on create, shows it in responses and changes it with PATCH in any status', async () => {
    const got = await h.http.get(`/campaigns/${publicId}`).set(bearer(a.secretKey));
    expect(got.body.archive).toBe(true);
    expect((await h.http.get(`/campaigns/${privateId}`).set(bearer(a.secretKey))).body.archive).toBe(false);
    expect((await h.http.patch(`/campaigns/${privateId}`).set(bearer(a.secretKey)).send({ archive: 'yes' })).status).toBe(422);
    expect((await h.http.patch(`/campaigns/${privateId}`).set(bearer(b.secretKey)).send({ archive: true })).status).toBe(404);
  });

  it("lists only the project's public SENT campaigns, each rendered without personal data or tracking", async () => {
    const page = await h.http.get(`/archive/${a.slug}`);
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toMatch(/default-src 'none'/);
    expect(page.text).toContain('Issue for you');
    expect(page.text).toContain(`/archive/${a.slug}/${publicId}`);
    expect(page.text).not.toContain(privateId);
    expect(page.text).not.toContain(draftId);
    expect(page.text).not.toContain(otherProjectId);
    expect(page.text).not.toContain('Private news');

    const one = await h.http.get(`/archive/${a.slug}/${publicId}`);
    expect(one.status).toBe(200);
    expect(one.headers['content-type']).toMatch(/^text\/html/);
    expect(one.text).toContain('Hello reader, you are .');
    expect(one.text).toContain('https://example.com/post');
    expect(one.text).not.toContain('Linus');
    expect(one.text).not.toContain(reader);
    expect(one.text).not.toMatch(/\/t\/[oc]\//);
    expect(one.text).not.toMatch(/\/unsubscribe\//);

    // Not public, not sent, or another project's: not in this archive.
    for (const id of [privateId, draftId, otherProjectId]) expect((await h.http.get(`/archive/${a.slug}/${id}`)).status).toBe(404);
    expect((await h.http.get(`/archive/${a.slug}/not-an-id`)).status).toBe(404);
  });

  it('lists newest first and follows PATCH', async () => {
    expect((await h.http.patch(`/campaigns/${privateId}`).set(bearer(a.secretKey)).send({ archive: true })).status).toBe(200);
    const page = await h.http.get(`/archive/${a.slug}`);
    expect(page.text.indexOf(privateId)).toBeGreaterThan(-1);
    expect(page.text.indexOf(privateId)).toBeLessThan(page.text.indexOf(publicId));
    expect((await h.http.patch(`/campaigns/${privateId}`).set(bearer(a.secretKey)).send({ archive: false })).status).toBe(200);
    expect((await h.http.get(`/archive/${a.slug}`)).text).not.toContain(privateId);
  });

  it('serves an Atom feed of the same campaigns', async () => {
    const res = await h.http
      .get(`/archive/${a.slug}/feed.xml`)
      .buffer(true)
      .parse((r, cb) => {
        let text = '';
        r.on('data', (c: Buffer) => (text += c.toString()));
        r.on('end', () => cb(null, text));
      });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/atom\+xml/);
    const xml = res.body as string;
    expect(xml).toMatch(/<feed xmlns="http:\/\/www.w3.org\/2005\/Atom">/);
    const feed = await new Parser().parseString(xml);
    expect(feed.items).toHaveLength(1);
    const [entry] = feed.items;
    expect(entry.title).toBe('Issue for you');
    expect(entry.link).toBe(`${h.config.appUrl}/archive/${a.slug}/${publicId}`);
    expect(entry.id).toBe(`${h.config.appUrl}/archive/${a.slug}/${publicId}`);
    expect(entry.isoDate).toBeTruthy();
    expect(xml).not.toContain('Linus');
    expect(xml).not.toContain(reader);
  });

  it('answers 404 to an unknown slug, and an empty page and feed to a project with none', async () => {
    const unknown = await h.http.get('/archive/no-such-project-anywhere');
    expect(unknown.status).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/^text\/html/);
    expect((await h.http.get('/archive/no-such-project-anywhere/feed.xml')).status).toBe(404);

    const empty = await project('Nothing sent');
    const page = await h.http.get(`/archive/${empty.slug}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('No campaigns yet.');
    const feed = await h.http
      .get(`/archive/${empty.slug}/feed.xml`)
      .buffer(true)
      .parse((r, cb) => {
        let text = '';
        r.on('data', (c: Buffer) => (text += c.toString()));
        r.on('end', () => cb(null, text));
      });
    expect(feed.status).toBe(200);
    expect((await new Parser().parseString(feed.body as string)).items).toHaveLength(0);
  });
});
