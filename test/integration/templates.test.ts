import crypto from 'node:crypto';
import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';

let h: Harness;
let p: ProjectFixture;

async function verifyDomain(projectId: string, domain: string) {
  await h.deps.knex('domains').insert({
    id: crypto.randomUUID(),
    project_id: projectId,
    domain,
    token: 't',
    status: 'VERIFIED',
    records: JSON.stringify([]),
    verified_at: new Date(),
  });
}

const valid = (over: Record<string, unknown> = {}) => ({
  name: 'Welcome',
  subject: 'Hi {{ first name ?? "there" }}',
  body: '<p>Hello {{name}}</p>',
  from: 'hello@example.com',
  ...over,
});

const create = (fixture: ProjectFixture, body: Record<string, unknown>) => h.http.post('/templates').set(bearer(fixture.secretKey)).send(body);

beforeAll(async () => {
  h = await startHarness();
  p = await createProjectFixture(h);
  await verifyDomain(p.projectId, 'example.com');
});
afterAll(() => h?.stop());

describe('template CRUD', () => {
  it('creates with defaults, reads, patches, duplicates and deletes', async () => {
    const created = await create(p, valid({ fromName: 'Team', replyTo: 'reply@elsewhere.org', from: 'news@mail.example.com' }));
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Welcome',
      description: null,
      subject: 'Hi {{ first name ?? "there" }}',
      body: '<p>Hello {{name}}</p>',
      // No text of its own: the text/plain part is generated from the body.
      text: null,
      from: 'news@mail.example.com',
      fromName: 'Team',
      replyTo: 'reply@elsewhere.org',
      type: 'MARKETING',
      projectId: p.projectId,
      // The editor's fields (docs/templates.md): an HTML template, published as version 1.
      editor: 'html',
      document: null,
      variants: null,
      publishedVersion: 1,
      hasDraft: false,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const id = created.body.id;

    const got = await h.http.get(`/templates/${id}`).set(bearer(p.secretKey));
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);

    const patched = await h.http.patch(`/templates/${id}`).set(bearer(p.secretKey)).send({ name: 'Renamed', type: 'TRANSACTIONAL', replyTo: null });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id, name: 'Renamed', type: 'TRANSACTIONAL', replyTo: null, subject: created.body.subject, fromName: 'Team' });
    expect(Date.parse(patched.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.body.updatedAt));

    const dup = await h.http.post(`/templates/${id}/duplicate`).set(bearer(p.secretKey));
    expect(dup.status).toBe(201);
    expect(dup.body.id).not.toBe(id);
    expect(dup.body).toMatchObject({
      name: 'Renamed (copy)',
      subject: created.body.subject,
      body: created.body.body,
      from: created.body.from,
      type: 'TRANSACTIONAL',
      projectId: p.projectId,
    });

    const usage = await h.http.get(`/templates/${id}/usage`).set(bearer(p.secretKey));
    expect(usage.status).toBe(200);
    expect(usage.body).toEqual({ campaigns: [], workflows: [] });

    const del = await h.http.delete(`/templates/${id}`).set(bearer(p.secretKey));
    expect(del.status).toBe(204);
    expect((await h.http.get(`/templates/${id}`).set(bearer(p.secretKey))).status).toBe(404);
    expect((await h.http.delete(`/templates/${id}`).set(bearer(p.secretKey))).status).toBe(404);
    expect((await h.http.get(`/templates/${dup.body.id}`).set(bearer(p.secretKey))).status).toBe(200);
  });

  it('answers 404 for malformed ids', async () => {
    const res = await h.http.get('/templates/not-a-uuid').set(bearer(p.secretKey));
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });
});

describe('usage', () => {
  it('lists the workflow steps that send a template and refuses to delete it while they do', async () => {
    const tpl = await h.http
      .post('/templates')
      .set(bearer(p.secretKey))
      .send(valid({ name: 'used' }));
    const wf = await h.http.post('/workflows').set(bearer(p.secretKey)).send({ name: 'Onboarding', eventName: 'signup' });
    const step = await h.http
      .post(`/workflows/${wf.body.id}/steps`)
      .set(bearer(p.secretKey))
      .send({ type: 'SEND_EMAIL', config: { templateId: tpl.body.id } });
    expect(step.status).toBe(201);
    const usage = await h.http.get(`/templates/${tpl.body.id}/usage`).set(bearer(p.secretKey));
    expect(usage.body).toEqual({ campaigns: [], workflows: [{ id: wf.body.id, name: 'Onboarding', stepId: step.body.id }] });
    const refused = await h.http.delete(`/templates/${tpl.body.id}`).set(bearer(p.secretKey));
    expect(refused.status).toBe(409);
    expect(refused.body.error.details.workflows).toHaveLength(1);
    expect((await h.http.delete(`/workflows/${wf.body.id}/steps/${step.body.id}`).set(bearer(p.secretKey))).status).toBe(204);
    expect((await h.http.delete(`/templates/${tpl.body.id}`).set(bearer(p.secretKey))).status).toBe(204);
  });
});

describe('validation', () => {
  it("answers a missing from with exactly the spec's flat body", async () => {
    const res = await h.http
      .post('/templates')
      .set(bearer(p.secretKey))
      .send(valid({ from: undefined }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'From address is required' });
  });

  it('answers flat 400 errors naming the problem', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [valid({ from: undefined }), /From address is required/],
      [valid({ from: 'not-an-email' }), /From address must be a valid email/],
      [valid({ name: undefined }), /Name is required/],
      [valid({ subject: 'two\nlines' }), /Subject must not contain line breaks/],
      [valid({ subject: 'x'.repeat(999) }), /Subject must be at most 998/],
      [valid({ body: '' }), /Body is required/],
      [valid({ type: 'WEEKLY' }), /Type must be one of TRANSACTIONAL, MARKETING, HEADLESS/],
      [valid({ replyTo: 'nope' }), /Reply-to address must be a valid email/],
      [valid({ fromName: 'A\r\nBcc: x@y.z' }), /From name must not contain line breaks/],
      [valid({ body: '<p>{{ name | nosuchfilter }}</p>' }), /Body is not a valid template: undefined filter: nosuchfilter/],
      [valid({ subject: 'Hi {% if %}' }), /Subject is not a valid template: .*line:1/],
    ];
    for (const [body, message] of cases) {
      const res = await create(p, body);
      expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: expect.stringMatching(message) } });
    }
  });

  it('validates patches with the same rules and refuses an empty one', async () => {
    const { body: t } = await create(p, valid());
    const bad = await h.http.patch(`/templates/${t.id}`).set(bearer(p.secretKey)).send({ body: '{% for %}' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/Body is not a valid template/);
    const empty = await h.http.patch(`/templates/${t.id}`).set(bearer(p.secretKey)).send({});
    expect(empty.status).toBe(400);
    expect(empty.body.error).toMatch(/Nothing to update/);
  });

  it('refuses a sender on an unverified domain with 403 INTERNAL_SERVER_ERROR', async () => {
    const res = await create(p, valid({ from: 'hello@unverified.example.org' }));
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ success: false, error: { code: 'INTERNAL_SERVER_ERROR', statusCode: 403 } });
    expect(res.body.error.message).toMatch(/unverified\.example\.org is not verified/);
    // A look-alike of the verified domain is not a subdomain of it.
    expect((await create(p, valid({ from: 'a@notexample.com' }))).status).toBe(403);

    const { body: t } = await create(p, valid());
    const patch = await h.http.patch(`/templates/${t.id}`).set(bearer(p.secretKey)).send({ from: 'x@unverified.example.org' });
    expect(patch.status).toBe(403);
    expect(patch.body.error.code).toBe('INTERNAL_SERVER_ERROR');
  });
});

describe('project scoping', () => {
  it("hides another project's templates and refuses its verified domains", async () => {
    const other = await createProjectFixture(h, 'other');
    const { body: t } = await create(p, valid());
    for (const res of [
      await h.http.get(`/templates/${t.id}`).set(bearer(other.secretKey)),
      await h.http.patch(`/templates/${t.id}`).set(bearer(other.secretKey)).send({ name: 'mine' }),
      await h.http.delete(`/templates/${t.id}`).set(bearer(other.secretKey)),
      await h.http.post(`/templates/${t.id}/duplicate`).set(bearer(other.secretKey)),
      await h.http.get(`/templates/${t.id}/usage`).set(bearer(other.secretKey)),
    ]) {
      expect(res.status).toBe(404);
    }
    const list = await h.http.get('/templates').set(bearer(other.secretKey));
    expect(list.body).toEqual({ data: [], total: 0, page: 1, pageSize: 20, totalPages: 0 });
    // example.com is verified by p, not by `other`.
    expect((await create(other, valid())).status).toBe(403);
    expect((await h.http.get(`/templates/${t.id}`).set(bearer(p.secretKey))).body.name).toBe('Welcome');
  });

  it('needs the secret key', async () => {
    expect((await h.http.get('/templates').set(bearer(p.publicKey))).status).toBe(401);
    expect((await h.http.get('/templates')).status).toBe(401);
  });
});

describe('listing', () => {
  let q: ProjectFixture;
  const names = ['Beta', 'alpha', 'Gamma 100%', 'Delta_x', 'Epsilon'];

  beforeAll(async () => {
    q = await createProjectFixture(h, 'listing');
    await verifyDomain(q.projectId, 'example.com');
    for (const [i, name] of names.entries()) {
      const res = await create(
        q,
        valid({ name, type: i % 2 ? 'TRANSACTIONAL' : 'MARKETING', description: i === 4 ? 'Mentions ORDERS' : null, subject: i === 1 ? 'Your order' : 'Hi' }),
      );
      expect(res.status).toBe(201);
    }
  });

  const list = async (query: Record<string, string | number>) => {
    const res = await h.http.get('/templates').query(query).set(bearer(q.secretKey));
    expect(res.status).toBe(200);
    return res.body;
  };

  it('pages newest first by default', async () => {
    const first = await list({ pageSize: 2 });
    expect(first).toMatchObject({ total: 5, page: 1, pageSize: 2, totalPages: 3 });
    expect(first.data.map((t: any) => t.name)).toEqual(['Epsilon', 'Delta_x']);
    const last = await list({ pageSize: 2, page: 3 });
    expect(last.data.map((t: any) => t.name)).toEqual(['Beta']);
    expect((await list({ pageSize: 2, page: 4 })).data).toEqual([]);
  });

  it('sorts by name, createdAt and updatedAt, and falls back on unknown values', async () => {
    expect((await list({ sort: 'name', dir: 'asc' })).data.map((t: any) => t.name)).toEqual(['alpha', 'Beta', 'Delta_x', 'Epsilon', 'Gamma 100%']);
    expect((await list({ sort: 'createdAt', dir: 'asc' })).data.map((t: any) => t.name)).toEqual(names);
    const fallback = await list({ sort: 'bogus', dir: 'sideways' });
    expect(fallback.data.map((t: any) => t.name)).toEqual([...names].reverse());
    const beta = fallback.data.find((t: any) => t.name === 'Beta');
    await h.http.patch(`/templates/${beta.id}`).set(bearer(q.secretKey)).send({ description: 'touched' });
    expect((await list({ sort: 'updatedAt' })).data[0].name).toBe('Beta');
  });

  it('filters by type and searches name, description and subject case-insensitively', async () => {
    const transactional = await list({ type: 'TRANSACTIONAL' });
    expect(transactional.data.map((t: any) => t.name).sort()).toEqual(['Delta_x', 'alpha']);
    expect(transactional.total).toBe(2);
    expect((await list({ search: 'ALPHA' })).data.map((t: any) => t.name)).toEqual(['alpha']);
    expect((await list({ search: 'orders' })).data.map((t: any) => t.name)).toEqual(['Epsilon']);
    expect((await list({ search: 'ORDER' })).data.map((t: any) => t.name).sort()).toEqual(['Epsilon', 'alpha']);
  });

  it('treats LIKE wildcards in the search literally', async () => {
    expect((await list({ search: '%' })).data.map((t: any) => t.name)).toEqual(['Gamma 100%']);
    expect((await list({ search: '_' })).data.map((t: any) => t.name)).toEqual(['Delta_x']);
  });

  it('rejects bad paging and type values with a flat 400', async () => {
    for (const query of [{ pageSize: 101 }, { page: 0 }, { type: 'WEEKLY' }]) {
      const res = await h.http.get('/templates').query(query).set(bearer(q.secretKey));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.any(String) });
    }
  });
});
