import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { startSmtpSink, SmtpSink } from '../helpers/smtpSink';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';

/**
 * Block emails through the real worker and SMTP transport into a local relay (issue 40): the
 * editor's "Send test" sends the draft, not the published version, and a campaign whose own content
 * is a block document sends the HTML compiled from it.
 */

let h: Harness;
let sink: SmtpSink;
let fx: ProjectFixture;
const DOMAIN = 'editor.example.com';
const FROM = `news@${DOMAIN}`;

const doc = (heading: string) => ({
  version: 1,
  settings: { preheader: 'A short preview line' },
  blocks: [
    { id: 'h', type: 'heading', text: heading },
    { id: 't', type: 'text', html: '<p>Hello {{ data.first ?? "there" }}</p>' },
    { id: 'b', type: 'button', text: 'Open', href: 'https://example.com/open' },
    { id: 'f', type: 'footer' },
  ],
});

beforeAll(async () => {
  sink = await startSmtpSink();
  h = await startHarness({ worker: true, env: { EMAIL_TRANSPORT: 'smtp', SMTP_URL: sink.url } });
  fx = await createProjectFixture(h, 'Editor sends');
  await verifiedDomain(h, fx.projectId, DOMAIN);
});
afterAll(async () => {
  await h?.stop();
  await sink?.stop();
});

/** The dashboard's way in: the session cookie and the project header. */
const asPerson = (req: import('supertest').Test) => req.set('Cookie', fx.cookie).set('X-Project-Id', fx.projectId);

describe('Send test of a draft', () => {
  let templateId: string;

  beforeAll(async () => {
    const created = await h.http
      .post('/templates')
      .set(bearer(fx.secretKey))
      .send({ name: 'Welcome', subject: 'Published subject', from: FROM, editor: 'blocks', document: doc('Published heading') });
    expect(created.status).toBe(201);
    templateId = created.body.id;
    const draft = await h.http
      .put(`/templates/${templateId}/draft`)
      .set(bearer(fx.secretKey))
      .send({ subject: 'Draft subject', editor: 'blocks', document: doc('Draft heading') });
    expect(draft.status).toBe(200);
  });

  it("sends the draft's compiled HTML to the signed-in person by default, with the preview data for this send only", async () => {
    const res = await asPerson(h.http.post(`/templates/${templateId}/test`)).send({ data: { first: 'Ada' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ to: fx.email, version: 'draft', locale: null });
    const mail = await eventually(async () => sink.mailsTo(fx.email)[0]);
    const parsed = await sink.parse(mail);
    expect(parsed.subject).toBe('Draft subject');
    const html = String(parsed.html);
    // MJML's output (presentation tables, the mobile media query), rendered by Liquid for the recipient.
    expect(html).toMatch(/<table[^>]+role="presentation"/);
    expect(html).toContain('@media only screen and (min-width:480px)');
    expect(html).toContain('Draft heading');
    expect(html).not.toContain('Published heading');
    expect(html).toContain('Hello Ada');
    expect(String(parsed.text)).toContain('Draft heading');
    // Not stored on the recipient's contact.
    const contact = await h.deps.knex('contacts').where({ project_id: fx.projectId, email: fx.email }).first();
    expect(contact.data?.first).toBeUndefined();
  });

  it('sends to the address given, and refuses an API key call without one', async () => {
    const to = uniqueEmail('tester');
    const res = await h.http.post(`/templates/${templateId}/test`).set(bearer(fx.secretKey)).send({ to });
    expect(res.status).toBe(201);
    const mail = await eventually(async () => sink.mailsTo(to)[0]);
    expect(String((await sink.parse(mail)).html)).toContain('Hello there');
    const missing = await h.http.post(`/templates/${templateId}/test`).set(bearer(fx.secretKey)).send({});
    expect(missing.status).toBe(422);
    expect(missing.body.error.errors).toEqual([expect.objectContaining({ field: 'to' })]);
  });

  it('sends the published content once the draft is published, and 404s for another project', async () => {
    expect((await h.http.post(`/templates/${templateId}/publish`).set(bearer(fx.secretKey)).send({})).status).toBe(201);
    const to = uniqueEmail('after');
    const res = await h.http.post(`/templates/${templateId}/test`).set(bearer(fx.secretKey)).send({ to });
    expect(res.body).toMatchObject({ version: 'published' });
    const mail = await eventually(async () => sink.mailsTo(to)[0]);
    expect(String((await sink.parse(mail)).html)).toContain('Draft heading');
    const other = await createProjectFixture(h, 'Other');
    expect((await h.http.post(`/templates/${templateId}/test`).set(bearer(other.secretKey)).send({ to })).status).toBe(404);
  });
});

describe('a campaign whose own content is a block document', () => {
  const campaign = (fields: Record<string, unknown>) =>
    h.http
      .post('/campaigns')
      .set(bearer(fx.secretKey))
      .send({ name: 'Blocks issue', subject: 'Issue for {{ data.first ?? "you" }}', from: FROM, audienceType: 'ALL', ...fields });

  it('is compiled once when saved and sends the compiled HTML (and its text part) to every recipient', async () => {
    const a = uniqueEmail('ada');
    const b = uniqueEmail('bob');
    for (const [email, first] of [
      [a, 'Ada'],
      [b, 'Bob'],
    ])
      expect((await h.http.post('/contacts').set(bearer(fx.secretKey)).send({ email, data: { first } })).status).toBe(201);
    const created = await campaign({ editor: 'blocks', document: doc('Campaign heading') });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    expect(created.body.data).toMatchObject({ editor: 'blocks', document: { version: 1 } });
    // The stored body is MJML's output with the Liquid left for each recipient.
    expect(created.body.data.body).toMatch(/<table[^>]+role="presentation"/);
    expect(created.body.data.body).toContain('Hello {{ data.first ?? "there" }}');
    const row = await h.deps.knex('campaigns').where({ id }).first();
    expect(row.compiled_text).toContain('Campaign heading');
    expect(row.text).toBeNull();

    expect((await h.http.post(`/campaigns/${id}/send`).set(bearer(fx.secretKey)).send({})).status).toBe(200);
    await eventually(async () => (await h.http.get(`/campaigns/${id}`).set(bearer(fx.secretKey))).body.status === 'SENT');
    for (const [email, first] of [
      [a, 'Ada'],
      [b, 'Bob'],
    ]) {
      const parsed = await sink.parse(await eventually(async () => sink.mailsTo(email)[0]));
      const html = String(parsed.html);
      expect(html).toMatch(/<table[^>]+role="presentation"/);
      expect(html).toContain('Campaign heading');
      expect(html).toContain(`Hello ${first}`);
      expect(parsed.subject).toBe(`Issue for ${first}`);
      // The text part compiled with the document (its button written as "Open [https://…]").
      expect(String(parsed.text)).toContain('Open [https://example.com/open]');
      expect(String(parsed.text)).toContain(`Hello ${first}`);
    }
  });

  it('refuses a document that does not validate with a 422 naming the block, a body beside it, and a blocks campaign without one', async () => {
    const bad = doc('x');
    (bad.blocks as unknown[]).push({ id: 'i', type: 'image', src: 'javascript:alert(1)', alt: 'a' });
    const res = await campaign({ editor: 'blocks', document: bad });
    expect(res.status).toBe(422);
    expect(res.body.error.errors).toEqual([expect.objectContaining({ field: 'document.blocks.4.src' })]);
    const both = await campaign({ editor: 'blocks', document: doc('x'), body: '<p>x</p>' });
    expect(both.status).toBe(422);
    expect(both.body.error.errors).toEqual([expect.objectContaining({ field: 'body' })]);
    const none = await campaign({ editor: 'blocks' });
    expect(none.status).toBe(422);
    expect(none.body.error.errors).toEqual([expect.objectContaining({ field: 'document' })]);
  });

  it('keeps HTML campaigns as they were, and a PUT back to HTML drops the document', async () => {
    const created = await campaign({ editor: 'blocks', document: doc('Before') });
    const id = created.body.data.id;
    const put = await h.http
      .put(`/campaigns/${id}`)
      .set(bearer(fx.secretKey))
      .send({ name: 'Now HTML', subject: 'S', body: '<p>Hand-written {{ unsubscribeUrl }}</p>', from: FROM, audienceType: 'ALL' });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ editor: 'html', document: null, body: '<p>Hand-written {{ unsubscribeUrl }}</p>' });
    expect((await h.deps.knex('campaigns').where({ id }).first()).compiled_text).toBeNull();
  });
});
