import crypto from 'node:crypto';
import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';

/** Block templates (issue 40): compile, 422 naming the block, drafts and versions, languages, brand, checks. */

let h: Harness;
let p: ProjectFixture;

const doc = (blocks: unknown[], settings: Record<string, unknown> = {}) => ({ version: 1, settings, blocks });
const blocks = (heading: string) => ({
  name: 'Blocks',
  subject: 'Hello',
  from: 'hi@example.com',
  editor: 'blocks',
  document: doc([
    { id: 'h', type: 'heading', text: heading },
    { id: 'b', type: 'button', text: 'Go', href: 'https://example.com' },
    { id: 'f', type: 'footer' },
  ]),
});

const api = () => ({
  get: (path: string) => h.http.get(path).set(bearer(p.secretKey)),
  post: (path: string, body: unknown = {}) =>
    h.http
      .post(path)
      .set(bearer(p.secretKey))
      .send(body as object),
  put: (path: string, body: unknown) =>
    h.http
      .put(path)
      .set(bearer(p.secretKey))
      .send(body as object),
  patch: (path: string, body: unknown) =>
    h.http
      .patch(path)
      .set(bearer(p.secretKey))
      .send(body as object),
});

const sendTo = async (template: string, to: string, data?: Record<string, unknown>) => {
  const res = await api().post('/v1/send', { template, to, data });
  expect(res.status).toBe(200);
  return h.deps.knex('emails').where({ id: res.body.data.emails[0].email }).first();
};

beforeAll(async () => {
  h = await startHarness();
  p = await createProjectFixture(h, 'editor');
  await h.deps.knex('domains').insert({
    id: crypto.randomUUID(),
    project_id: p.projectId,
    domain: 'example.com',
    token: 't',
    status: 'VERIFIED',
    records: JSON.stringify([]),
    verified_at: new Date(),
  });
});
afterAll(() => h?.stop());

describe('block templates', () => {
  it('compiles a blocks template: the body is the MJML-built HTML, the document is kept, version 1 is published', async () => {
    const res = await api().post('/templates', blocks('Welcome {{ name }}'));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ editor: 'blocks', publishedVersion: 1, hasDraft: false, document: { version: 1 } });
    expect(res.body.body).toMatch(/<table[^>]+role="presentation"/);
    expect(res.body.body).toContain('Welcome {{ name }}');
    expect(res.body.body).toContain('href="{{ unsubscribeUrl }}"');
    const sent = await sendTo(res.body.id, 'ada@example.org', { name: 'Ada' });
    expect(sent.body).toContain('Welcome {{ name }}');
    // The text part compiled with the HTML, not generated per recipient.
    expect(sent.text).toContain('Unsubscribe [{{ unsubscribeUrl }}]');
  });

  it('refuses a document that does not validate with a 422 naming the block and field', async () => {
    const body = blocks('x');
    (body.document.blocks as unknown[]).push({ id: 'i', type: 'image', src: 'javascript:alert(1)', alt: 'a' });
    const res = await api().post('/templates', body);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(/^document\.blocks\.3\.src: /);
    const missing = await api().post('/templates', { ...blocks('x'), document: undefined });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('Document is required for a blocks template');
  });

  it('keeps HTML templates as they were', async () => {
    const res = await api().post('/templates', { name: 'Plain', subject: 'S', body: '<p>Hi {{ name }}</p>', from: 'hi@example.com' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ editor: 'html', body: '<p>Hi {{ name }}</p>', document: null, text: null, publishedVersion: 1 });
    const patched = await api().patch(`/templates/${res.body.id}`, { body: '<p>Bye</p>' });
    expect(patched.body).toMatchObject({ body: '<p>Bye</p>', publishedVersion: 2 });
    const sent = await sendTo(res.body.id, 'plain@example.org');
    expect(sent.body).toBe('<p>Bye</p>');
    expect(sent.text).toBeNull();
  });

  it('sends the published version while a draft waits; publishing makes the draft current; versions list and restore', async () => {
    const { body: t } = await api().post('/templates', blocks('Version one'));
    const draft = await api().put(`/templates/${t.id}/draft`, { subject: 'Hello 2', editor: 'blocks', document: blocks('Version two').document });
    expect(draft.status).toBe(200);
    expect(draft.body).toMatchObject({ isDraft: true, subject: 'Hello 2' });
    expect((await api().get(`/templates/${t.id}`)).body).toMatchObject({ hasDraft: true, publishedVersion: 1 });
    expect((await api().get(`/templates/${t.id}/draft`)).body.body).toContain('Version two');

    const before = await sendTo(t.id, 'draft@example.org');
    expect(before.body).toContain('Version one');
    expect(before.subject).toBe('Hello');

    const published = await api().post(`/templates/${t.id}/publish`, { note: 'second' });
    expect(published.status).toBe(201);
    expect(published.body).toMatchObject({ number: 2, note: 'second', subject: 'Hello 2' });
    const after = await sendTo(t.id, 'draft@example.org');
    expect(after.body).toContain('Version two');
    expect((await api().get(`/templates/${t.id}`)).body).toMatchObject({ hasDraft: false, publishedVersion: 2 });
    expect((await api().post(`/templates/${t.id}/publish`)).status).toBe(409);

    const versions = await api().get(`/templates/${t.id}/versions`);
    expect(versions.body.data.map((v: { number: number }) => v.number)).toEqual([2, 1]);
    expect((await api().get(`/templates/${t.id}/versions/1`)).body.body).toContain('Version one');
    const restored = await api().post(`/templates/${t.id}/versions/1/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body.body).toContain('Version one');
    // Restoring does not publish.
    expect((await sendTo(t.id, 'draft@example.org')).body).toContain('Version two');
    await api().post(`/templates/${t.id}/publish`);
    expect((await sendTo(t.id, 'draft@example.org')).body).toContain('Version one');
    expect((await api().get(`/templates/${t.id}/versions/9`)).status).toBe(404);
  });

  it('chooses the language variant by the contact locale: exact, then language, then the default', async () => {
    const res = await api().post('/templates', {
      name: 'Multi',
      subject: 'Hello',
      body: '<p>Hello</p>',
      from: 'hi@example.com',
      variants: {
        fr: { subject: 'Bonjour', body: '<p>Bonjour</p>' },
        'pt-BR': { subject: 'Olá', body: '<p>Olá</p>' },
        pt: { subject: 'Olá PT', body: '<p>Olá PT</p>' },
      },
    });
    expect(res.status).toBe(201);
    const id = res.body.id;
    expect((await sendTo(id, 'exact@example.org', { locale: 'pt-BR' })).subject).toBe('Olá');
    expect((await sendTo(id, 'lang@example.org', { locale: 'fr-CA' })).subject).toBe('Bonjour');
    expect((await sendTo(id, 'pt@example.org', { locale: 'pt-PT' })).subject).toBe('Olá PT');
    expect((await sendTo(id, 'none@example.org', { locale: 'de' })).subject).toBe('Hello');
    expect((await sendTo(id, 'unset@example.org')).subject).toBe('Hello');
    // A stored locale counts when the request gives none.
    expect((await sendTo(id, 'exact@example.org')).subject).toBe('Olá');
    const bad = await api().post('/templates', {
      name: 'x',
      subject: 's',
      body: 'b',
      from: 'hi@example.com',
      variants: { 'not a locale': { subject: 's', body: 'b' } },
    });
    expect(bad.status).toBe(400);
  });

  it('stores a brand and compiles documents with it', async () => {
    const defaults = await api().get('/brand');
    expect(defaults.status).toBe(200);
    expect(defaults.body.colors.accent).toMatch(/^#/);
    const brand = { ...defaults.body, colors: { ...defaults.body.colors, accent: '#ab12cd' }, footer: { companyName: 'Acme Corp', address: '1 Main St' } };
    const put = await api().put('/brand', brand);
    expect(put.status).toBe(200);
    expect((await api().get('/brand')).body).toEqual(brand);
    expect((await api().put('/brand', { ...brand, colors: { ...brand.colors, text: 'red;x' } })).status).toBe(422);
    const t = await api().post('/templates', blocks('Branded'));
    expect(t.body.body).toContain('#ab12cd');
    expect(t.body.body).toContain('Acme Corp · 1 Main St');
  });

  it('returns checks with the preview and lists the starters', async () => {
    await h.deps.knex('contact_fields').insert({ project_id: p.projectId, key: 'firstName', type: 'string' }).onConflict(['project_id', 'key']).ignore();
    const res = await api().post('/templates/preview', {
      subject: '',
      editor: 'blocks',
      type: 'MARKETING',
      document: doc([
        { id: 'h', type: 'heading', text: 'Hi {{ firstNme }}' },
        { id: 'img', type: 'image', src: 'https://example.com/a.png', alt: '' },
        { id: 'btn', type: 'button', text: 'Go', href: 'http://example.com' },
      ]),
    });
    expect(res.status).toBe(200);
    const rules = res.body.checks.map((c: { rule: string }) => c.rule).sort();
    expect(rules).toEqual(['image-alt', 'link-insecure', 'no-preheader', 'no-unsubscribe', 'subject-empty', 'unknown-variable']);
    expect(res.body.checks.find((c: { rule: string }) => c.rule === 'unknown-variable').message).toContain('did you mean {{ firstName }}');
    expect(res.body.checks.find((c: { rule: string }) => c.rule === 'image-alt').blockId).toBe('img');
    // The exact English of before without Accept-Language; the request's language (fr, de) when it sends one.
    const body = {
      subject: '',
      editor: 'blocks',
      type: 'MARKETING',
      document: doc([
        { id: 'h', type: 'heading', text: 'Hi {{ firstNme }}' },
        { id: 'img', type: 'image', src: 'https://example.com/a.png', alt: '' },
      ]),
    };
    const said = async (lang?: string) => {
      const req = h.http.post('/templates/preview').set(bearer(p.secretKey));
      const r = await (lang ? req.set('Accept-Language', lang) : req).send(body);
      expect(r.status).toBe(200);
      expect(r.headers.vary).toMatch(/Accept-Language/);
      return r.body.checks.map((c: { rule: string; message: string; blockId?: string }) => [c.rule, c.message, c.blockId ?? null]);
    };
    expect(await said()).toEqual([
      [
        'unknown-variable',
        "{{ firstNme }} is not a field of this project's contacts: did you mean {{ firstName }}? (it renders empty unless the send provides it)",
        null,
      ],
      ['no-unsubscribe', 'Marketing email needs an unsubscribe link: add a footer block or a link to {{ unsubscribeUrl }}', null],
      ['image-alt', 'This image has no alt text', 'img'],
      ['no-preheader', 'No preheader: inboxes show the first words of the email instead', null],
      ['subject-empty', 'The subject is empty', null],
    ]);
    expect(await said('fr-FR,fr;q=0.9,en;q=0.8')).toEqual([
      [
        'unknown-variable',
        '{{ firstNme }} n’est pas un champ des contacts de ce projet : vouliez-vous dire {{ firstName }} ? (il reste vide si l’envoi ne le fournit pas)',
        null,
      ],
      [
        'no-unsubscribe',
        'Un e-mail marketing doit contenir un lien de désinscription : ajoutez un bloc de pied de page ou un lien vers {{ unsubscribeUrl }}',
        null,
      ],
      ['image-alt', 'Cette image n’a pas de texte alternatif', 'img'],
      ['no-preheader', 'Pas de texte d’aperçu : les boîtes de réception affichent à la place les premiers mots de l’e-mail', null],
      ['subject-empty', 'L’objet est vide', null],
    ]);
    expect(await said('de')).toEqual([
      [
        'unknown-variable',
        '{{ firstNme }} ist kein Feld der Kontakte dieses Projekts: Meinten Sie {{ firstName }}? (es bleibt leer, wenn der Versand es nicht mitliefert)',
        null,
      ],
      ['no-unsubscribe', 'Marketing-E-Mails brauchen einen Abmeldelink: Fügen Sie einen Fußzeilenblock oder einen Link auf {{ unsubscribeUrl }} hinzu', null],
      ['image-alt', 'Dieses Bild hat keinen Alternativtext', 'img'],
      ['no-preheader', 'Kein Vorschautext: Posteingänge zeigen stattdessen die ersten Wörter der E-Mail', null],
      ['subject-empty', 'Der Betreff ist leer', null],
    ]);
    const bad = await api().post('/templates/preview', {
      subject: 's',
      editor: 'blocks',
      document: doc([{ id: 'x', type: 'button', text: 'b', href: 'nope' }]),
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.errors[0].field).toBe('document.blocks.0.href');

    const starters = await api().get('/templates/starters');
    expect(starters.status).toBe(200);
    expect(starters.body.data.map((s: { id: string }) => s.id)).toEqual([
      'welcome',
      'newsletter',
      'product-update',
      'receipt',
      'password-reset',
      'event-invitation',
    ]);
  });
});
