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
