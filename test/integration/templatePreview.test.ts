import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';

/**
 * POST /templates/preview: the dashboard's template editor renders through the server's own Liquid
 * renderer (services/render.ts), so the preview is what a send would deliver; nothing is stored.
 */

const APP = 'http://app.example.test:8080';

let h: Harness;
let p: ProjectFixture;
let other: ProjectFixture;

beforeAll(async () => {
  h = await startHarness({ env: { APP_URL: `${APP}/` } });
  [p, other] = await Promise.all([createProjectFixture(h, 'preview'), createProjectFixture(h, 'someone else')]);
});
afterAll(() => h?.stop());

const preview = (body: Record<string, unknown>, fixture = p) => h.http.post('/templates/preview').set(bearer(fixture.secretKey)).send(body);

describe('POST /templates/preview', () => {
  it('renders subject, HTML body and a generated text part with the given data, HTML-escaping outputs in the body only', async () => {
    const res = await preview({
      subject: 'Hi {{ first name ?? "there" }} & welcome',
      body: '<h1>Hello {{ name }}</h1><p>{{ note }}</p>',
      data: { name: 'Ada', note: '<b>bold</b>' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      subject: 'Hi there & welcome',
      html: '<h1>Hello Ada</h1><p>&lt;b&gt;bold&lt;/b&gt;</p>',
      text: expect.stringContaining('Hello Ada'),
      locale: null,
      checks: expect.any(Array),
    });
    expect(await h.deps.knex('templates').where({ project_id: p.projectId }).count({ n: '*' })).toEqual([{ n: 0 }]);
  });

  it("renders the template's own text part when given, without escaping", async () => {
    const res = await preview({ subject: 's', body: '<p>x</p>', text: 'Plain {{ v }}', data: { v: '<&>' } });
    expect(res.status).toBe(200);
    expect(res.body.text).toBe('Plain <&>');
  });

  it('answers 422 in the error envelope naming each part that is not valid Liquid, with its line', async () => {
    const res = await preview({ subject: 'Hi {{ name', body: '<p>ok</p>\n{% if x %}never closed', text: 'fine' });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR', statusCode: 422 } });
    const errors = res.body.error.errors as Array<{ field: string; code: string; message: string }>;
    expect(errors.map((e) => e.field)).toEqual(['subject', 'body']);
    expect(errors[1]).toMatchObject({ code: 'invalid_template', message: expect.stringMatching(/line:2/) });
    expect(res.body.error.message).toMatch(/^The template does not parse: subject: /);
  });

  it('answers 422 with the field for a missing or mistyped part', async () => {
    const res = await preview({ subject: 'x', body: 42 });
    expect(res.status).toBe(422);
    expect(res.body.error.errors[0]).toMatchObject({ field: 'body' });
  });

  it("renders with a contact's fields, email and subscription links; data overrides them; another project's contact is a 404", async () => {
    const contact = await h.http
      .post('/contacts')
      .set(bearer(p.secretKey))
      .send({ email: 'ada@example.test', data: { plan: 'pro', city: 'Paris' } });
    expect(contact.status).toBe(201);
    const res = await preview({
      subject: '{{ email }}',
      body: '<p>{{ plan }} in {{ city }}</p><a href="{{ unsubscribeUrl }}">u</a>',
      contactId: contact.body.id,
      data: { city: 'Lyon' },
    });
    expect(res.status).toBe(200);
    expect(res.body.subject).toBe('ada@example.test');
    expect(res.body.html).toContain('<p>pro in Lyon</p>');
    expect(res.body.html).toContain(`href="${APP}/unsubscribe/`);
    expect((await preview({ subject: 's', body: 'b', contactId: contact.body.id }, other)).status).toBe(404);
  });

  it('takes the session cookie with X-Project-Id, as every secret-key route does', async () => {
    const res = await h.http
      .post('/templates/preview')
      .set({ Cookie: p.cookie, 'X-Project-Id': p.projectId, Origin: APP })
      .send({ subject: 'Hi', body: '<p>{{ a }}</p>', data: { a: 1 } });
    expect(res.status).toBe(200);
    expect(res.body.html).toBe('<p>1</p>');
    expect((await h.http.post('/templates/preview').set({ Cookie: p.cookie, Origin: APP }).send({ subject: 'Hi', body: 'b' })).status).toBe(401);
  });

  it('is in the OpenAPI document', async () => {
    const doc = await h.http.get('/openapi.json');
    expect(doc.body.paths['/templates/preview'].post.responses).toHaveProperty('422');
  });
});
