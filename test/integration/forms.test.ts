import crypto from 'node:crypto';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { confirmUrlFor } from '../../lib/unsubscribe';
import { signFormStamp } from '../../lib/formStamp';

/** Signup forms (docs/forms.md): settings, the hosted page, and submissions from any site. */

const APP = 'http://forms.example.test:8080';
const FOREIGN = { Origin: 'https://someone-elses-blog.example', 'Sec-Fetch-Site': 'cross-site' };
const DOMAIN = 'forms.example.com';

let h: Harness;
let p: ProjectFixture;

beforeAll(async () => {
  h = await startHarness({ worker: true, env: { APP_URL: `${APP}/` } });
  p = await createProjectFixture(h, 'forms');
  await verifiedDomain(h, p.projectId, DOMAIN);
  expect((await h.http.post('/topics').set(bearer(p.secretKey)).send({ name: 'News', slug: 'news' })).status).toBe(201);
});
afterAll(() => h?.stop());

/** The dashboard's door: the session cookie and the project header. */
const dash = () => ({ Cookie: p.cookie, 'X-Project-Id': p.projectId });
const randomIp = () => `10.${crypto.randomInt(256)}.${crypto.randomInt(256)}.${crypto.randomInt(1, 255)}`;

const FIELDS = [
  { key: 'company', label: 'Company', type: 'text', required: true },
  { key: 'seats', label: 'Seats', type: 'number', required: false },
  { key: 'newsletterTerms', label: 'I accept the terms', type: 'checkbox', required: false },
  { key: 'birthday', label: 'Birthday', type: 'date', required: false },
  { key: 'plan', label: 'Plan', type: 'select', required: false, options: ['free', 'pro'] },
];

async function newForm(body: Record<string, unknown> = {}, fx = p) {
  const res = await h.http
    .post('/forms')
    .set(bearer(fx.secretKey))
    .send({ name: 'Newsletter', fields: FIELDS, topics: ['news'], ...body });
  expect(res.status).toBe(201);
  return res.body;
}

/** A browser on another site posting the form (the embed snippet), from its own address. */
const submit = (formId: string, values: Record<string, string>, ip = randomIp()) =>
  h.http
    .post(`/f/${formId}`)
    .set(FOREIGN)
    .set('X-Forwarded-For', ip)
    .set('User-Agent', 'FormBrowser/1')
    .type('form')
    .send(new URLSearchParams(values).toString());

const contactByEmail = (email: string, fx = p) => h.deps.knex('contacts').where({ project_id: fx.projectId, email }).first();
const contactEvents = async (id: string) =>
  (await h.deps.knex('events').where({ contact_id: id }).andWhere('name', 'like', 'contact.%').orderBy('created_at').select('name', 'data')).map((e: any) => [
    e.name,
    e.data.source,
  ]);

describe('form settings', () => {
  it('creates, lists, reads, changes and deletes a form, audited, by key or by dashboard session', async () => {
    const created = await h.http
      .post('/forms')
      .set(dash())
      .set('Origin', APP)
      .send({ name: 'Launch list', fields: FIELDS, topics: ['news'], successMessage: 'Welcome aboard!' });
    expect(created.status).toBe(201);
    const form = created.body;
    expect(form).toMatchObject({ name: 'Launch list', topics: ['news'], doubleOptIn: null, successMessage: 'Welcome aboard!', redirectUrl: null });
    expect(form.fields).toEqual(FIELDS);
    expect(form.publicUrl).toBe(`${APP}/f/${form.id}`);
    expect(form.embedHtml).toContain(`<form method="post" action="${form.publicUrl}"`);
    expect(form.embedHtml).toContain('name="_hp_website"');
    expect(form.embedHtml).toContain('<input type="email" id="f-email" name="email" required');
    expect(form.embedHtml).not.toMatch(/<script/i);
    expect(form.embedHtml).not.toContain('_stamp');

    const list = await h.http.get('/forms').set(bearer(p.secretKey));
    expect(list.body.data.map((f: any) => f.id)).toContain(form.id);
    expect((await h.http.get(`/forms/${form.id}`).set(dash())).body).toEqual(form);

    const patched = await h.http.patch(`/forms/${form.id}`).set(bearer(p.secretKey)).send({ name: 'Launch', redirectUrl: 'https://example.org/thanks' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Launch', redirectUrl: 'https://example.org/thanks', publicUrl: form.publicUrl });

    expect((await h.http.delete(`/forms/${form.id}`).set(bearer(p.secretKey))).status).toBe(204);
    expect((await h.http.get(`/forms/${form.id}`).set(bearer(p.secretKey))).status).toBe(404);
    expect((await h.http.get(`/f/${form.id}`)).status).toBe(404);
    const actions = await h.deps.knex('audit_log').where({ project_id: p.projectId, target_id: form.id }).orderBy('at').pluck('action');
    expect(actions).toEqual(['form.create', 'form.update', 'form.delete']);
  });

  it('is not reachable from another project', async () => {
    const other = await createProjectFixture(h, 'other');
    const form = await newForm({ topics: [] }, other);
    expect((await h.http.get(`/forms/${form.id}`).set(bearer(p.secretKey))).status).toBe(404);
    expect((await h.http.patch(`/forms/${form.id}`).set(bearer(p.secretKey)).send({ name: 'x' })).status).toBe(404);
    expect((await h.http.delete(`/forms/${form.id}`).set(bearer(p.secretKey))).status).toBe(404);
  });

  it.each([
    ['no name', { name: '' }, 'name'],
    ['an email field (it is implicit)', { fields: [{ key: 'email', label: 'E', type: 'text' }] }, 'fields.0.key'],
    ['a dotted key', { fields: [{ key: 'a.b', label: 'A', type: 'text' }] }, 'fields.0.key'],
    ['a key the form uses itself', { fields: [{ key: '_stamp', label: 'A', type: 'text' }] }, 'fields.0.key'],
    ['two fields with one key', { fields: [FIELDS[0], FIELDS[0]] }, 'fields.1.key'],
    ['a select without options', { fields: [{ key: 'plan', label: 'Plan', type: 'select' }] }, 'fields.0.options'],
    ['options on a text field', { fields: [{ key: 'x', label: 'X', type: 'text', options: ['a'] }] }, 'fields.0.options'],
    ['an unknown field type', { fields: [{ key: 'x', label: 'X', type: 'color' }] }, 'fields.0.type'],
    ['an unknown topic', { topics: ['nope'] }, 'topics.0'],
    ['a redirect that is not http(s)', { redirectUrl: 'javascript:alert(1)' }, 'redirectUrl'],
    ["double opt-in without the project's settings", { doubleOptIn: true }, 'doubleOptIn'],
  ])('refuses %s with 422 naming the field', async (_, body, field) => {
    const res = await h.http
      .post('/forms')
      .set(bearer(p.secretKey))
      .send({ name: 'Bad', ...body });
    expect(res.status).toBe(422);
    expect(res.body.error.errors.map((e: any) => e.field)).toContain(field);
  });

  it('refuses a field whose key already holds another type in the project', async () => {
    await h.http
      .post('/contacts')
      .set(bearer(p.secretKey))
      .send({ email: uniqueEmail(), data: { shoeSize: 'large' } });
    const res = await h.http
      .post('/forms')
      .set(bearer(p.secretKey))
      .send({ name: 'Shoes', fields: [{ key: 'shoeSize', label: 'Shoe size', type: 'number' }] });
    expect(res.status).toBe(422);
    expect(res.body.error.errors[0].field).toBe('fields.0.type');
  });

  it('keeps the origin check on every other write: the dashboard session from another site is refused', async () => {
    const res = await h.http.post('/forms').set(dash()).set(FOREIGN).send({ name: 'From elsewhere' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
    const urlencoded = await h.http.post('/forms').set(dash()).type('form').send('name=Form+post');
    expect(urlencoded.status).toBe(415);
    expect(await h.deps.knex('forms').where({ project_id: p.projectId }).whereIn('name', ['From elsewhere', 'Form post']).first()).toBeUndefined();
  });
});

describe('the hosted page', () => {
  it('renders the form under the pages CSP, with no script, a honeypot and a signed stamp', async () => {
    const form = await newForm({ redirectUrl: 'https://thanks.example.net/done' });
    const res = await h.http.get(`/f/${form.id}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    const csp = res.headers['content-security-policy'];
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    // The redirect after a submission is a form target too.
    expect(csp).toContain("form-action 'self' https://thanks.example.net;");
    expect(res.text).not.toMatch(/<script/i);
    expect(res.text).toContain(`<form method="post" action="/f/${form.id}"`);
    expect(res.text).toContain('<div class="hp" aria-hidden="true">');
    expect(res.text).toMatch(/name="_stamp" value="\d+\.[\w-]+"/);
    expect(res.text).toContain('<option value="pro">pro</option>');
    expect((await h.http.get('/f/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });
});

describe("the visitor's language", () => {
  it('renders the page, its errors and its answer in the browser language where a catalogue exists', async () => {
    const form = await newForm();
    const fr = await h.http.get(`/f/${form.id}`).set('Accept-Language', 'fr-CA,fr;q=0.9,en;q=0.5');
    expect(fr.text).toContain('<html lang="fr">');
    expect(fr.text).toContain('<button type="submit">S&#39;inscrire</button>');
    // The author's labels stay as written.
    expect(fr.text).toContain('Company');
    const refused = await submit(form.id, { email: 'nope' }).set('Accept-Language', 'fr');
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('id="f-email-error">Saisissez une adresse e-mail valide, comme nom@example.com.');
    expect(refused.text).toContain('id="f-company-error">Ce champ est obligatoire.');
    const done = await submit(form.id, { email: uniqueEmail('de'), company: 'Acme' }).set('Accept-Language', 'de-DE,de;q=0.9');
    expect(done.status).toBe(200);
    expect(done.text).toContain('<html lang="de">');
    expect(done.text).toContain('Vielen Dank für Ihre Anmeldung.');
    // No catalogue for Spanish: English.
    const es = await h.http.get(`/f/${form.id}`).set('Accept-Language', 'es');
    expect(es.text).toContain('<html lang="en">');
    expect(es.text).toContain('<button type="submit">Subscribe</button>');
  });
});

describe('submissions', () => {
  it('take a urlencoded post from another site: the contact with typed fields and topics, subscribed, consent from form:<id>', async () => {
    const form = await newForm({ successMessage: 'Thanks, you are on the list.' });
    const email = uniqueEmail('form');
    const res = await submit(form.id, {
      email: email.toUpperCase(),
      company: 'Acme',
      seats: '42',
      newsletterTerms: 'true',
      birthday: '1990-05-17',
      plan: 'pro',
      _hp_website: '',
    });
    expect(res.status).toBe(200);
    expect(res.text).toContain('Thanks, you are on the list.');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");

    const contact = await contactByEmail(email);
    expect(contact).toMatchObject({ subscribed: true, data: { company: 'Acme', seats: 42, newsletterTerms: true, birthday: '1990-05-17', plan: 'pro' } });
    const api = await h.http.get(`/contacts/${contact.id}`).set(bearer(p.secretKey));
    expect(api.body.topics).toMatchObject({ news: true });
    const consent = await h.deps
      .knex('consent_records')
      .where({ contact_id: contact.id })
      .orderBy('id')
      .select('scope', 'topic_slug', 'value', 'source', 'ip', 'user_agent');
    expect(consent).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ scope: 'global', value: true, source: `form:${form.id}`, user_agent: 'FormBrowser/1' }),
        expect.objectContaining({ scope: 'topic', topic_slug: 'news', value: true, source: `form:${form.id}` }),
      ]),
    );
    expect(await contactEvents(contact.id)).toEqual([['contact.subscribed', `form:${form.id}`]]);
    // The field registry learns the types the form stores.
    const types = Object.fromEntries(
      (await h.deps.knex('contact_fields').where({ project_id: p.projectId }).whereIn('key', ['seats', 'newsletterTerms', 'birthday'])).map((r: any) => [
        r.key,
        r.type,
      ]),
    );
    expect(types).toEqual({ seats: 'number', newsletterTerms: 'boolean', birthday: 'date' });

    // An unchecked box is false; empty optional fields are left as they were.
    await submit(form.id, { email, company: 'Acme Two' });
    expect((await contactByEmail(email)).data).toMatchObject({ company: 'Acme Two', seats: 42, newsletterTerms: false, plan: 'pro' });
  });

  it('subscribes an unsubscribed contact again, recording contact.subscribed from the form', async () => {
    const form = await newForm({ fields: [], topics: [] });
    const email = uniqueEmail('back');
    const made = await h.http.post('/contacts').set(bearer(p.secretKey)).send({ email, subscribed: false });
    expect((await submit(form.id, { email })).status).toBe(200);
    expect((await contactByEmail(email)).subscribed).toBe(true);
    expect(await contactEvents(made.body.id)).toEqual([['contact.subscribed', `form:${form.id}`]]);
  });

  it('answers the same page for a new address and an already subscribed one', async () => {
    const form = await newForm({ fields: [], topics: [] });
    const email = uniqueEmail('twice');
    const first = await submit(form.id, { email });
    const again = await submit(form.id, { email });
    expect(first.status).toBe(200);
    expect(again.status).toBe(first.status);
    expect(again.text).toBe(first.text);
    const other = await submit(form.id, { email: uniqueEmail('fresh') });
    expect(other.text).toBe(first.text);
  });

  it('sends 303 to the redirect URL', async () => {
    const form = await newForm({ fields: [], topics: [], redirectUrl: 'https://example.org/welcome?src=form' });
    const email = uniqueEmail('redirect');
    const res = await submit(form.id, { email });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('https://example.org/welcome?src=form');
    expect(await contactByEmail(email)).toBeDefined();
  });

  it('shows the form again (422) with the message on the field for an invalid address or value, storing nothing', async () => {
    const form = await newForm();
    const res = await submit(form.id, { email: 'not-an-address', company: 'Acme <b>', plan: 'gold', seats: 'many' });
    expect(res.status).toBe(422);
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.text).not.toMatch(/<script/i);
    expect(res.text).toContain('aria-invalid="true" aria-describedby="f-email-error"');
    expect(res.text).toContain('<span class="error" id="f-email-error">Enter a valid email address, like name@example.com.</span>');
    expect(res.text).toContain('id="f-plan-error">Choose one of the options.');
    expect(res.text).toContain('id="f-seats-error">Enter a number.');
    // What was typed comes back, escaped.
    expect(res.text).toContain('value="Acme &lt;b&gt;"');
    expect(await h.deps.knex('contacts').where({ project_id: p.projectId, email: 'not-an-address' }).first()).toBeUndefined();
    const missing = await submit(form.id, { email: uniqueEmail('req') });
    expect(missing.status).toBe(422);
    expect(missing.text).toContain('id="f-company-error">This field is required.');
  });

  it('takes a filled honeypot, a forged stamp or a too-fresh stamp in silence: the same answer, nothing stored', async () => {
    const form = await newForm({ fields: [], topics: [] });
    const ok = await submit(form.id, { email: uniqueEmail('person') });
    const secret = h.config.jwtSecret;
    const bots: Record<string, string>[] = [
      { email: uniqueEmail('bot'), _hp_website: 'http://spam.example' },
      { email: uniqueEmail('bot'), _stamp: `${Date.now() - 60_000}.forged` },
      { email: uniqueEmail('bot'), _stamp: signFormStamp(secret, '00000000-0000-4000-8000-000000000000', Date.now() - 60_000) },
      // Stamped in the future: no time at all was spent on the page.
      { email: uniqueEmail('bot'), _stamp: signFormStamp(secret, form.id, Date.now() + 60_000) },
    ];
    for (const values of bots) {
      const res = await submit(form.id, values);
      expect(res.status).toBe(200);
      expect(res.text).toBe(ok.text);
      expect(await contactByEmail(values.email)).toBeUndefined();
    }
    // A page held long enough carries a stamp that passes.
    const person = uniqueEmail('stamped');
    await submit(form.id, { email: person, _stamp: signFormStamp(secret, form.id, Date.now() - 10_000) });
    expect(await contactByEmail(person)).toBeDefined();
  });
});

describe('double opt-in', () => {
  it('mails the confirmation and leaves the contact unsubscribed (no contact.subscribed) until the link is pressed', async () => {
    const fx = await createProjectFixture(h, 'forms-doi');
    await verifiedDomain(h, fx.projectId, DOMAIN);
    expect(
      (
        await h.http
          .patch('/settings')
          .set(bearer(fx.secretKey))
          .send({ doubleOptIn: { enabled: false, from: `hi@${DOMAIN}` } })
      ).status,
    ).toBe(200);
    const form = await newForm({ fields: [{ key: 'company', label: 'Company', type: 'text' }], topics: [], doubleOptIn: true }, fx);
    expect(form.doubleOptIn).toBe(true);
    const email = uniqueEmail('doi');
    const res = await submit(form.id, { email, company: 'Pending Inc' });
    expect(res.status).toBe(200);
    expect(res.text).toContain('Check your inbox');

    const contact = await contactByEmail(email, fx);
    expect(contact).toMatchObject({ subscribed: false, data: { company: 'Pending Inc' } });
    const mail = await eventually(async () => {
      const row = await h.deps.knex('emails').where({ contact_id: contact.id }).first();
      return row?.status === 'SENT' ? row : null;
    });
    expect(mail).toMatchObject({ subject: 'Please confirm your subscription', from_email: `hi@${DOMAIN}` });
    const confirmUrl = confirmUrlFor(h.config, fx.projectId, contact.id);
    expect(mail.rendered_body).toContain(confirmUrl);
    expect(await contactEvents(contact.id)).toEqual([]);
    expect(await h.deps.knex('consent_records').where({ contact_id: contact.id }).pluck('source')).toEqual([`form:${form.id}`]);

    // The same answer for an address that already waits (or is subscribed).
    expect((await submit(form.id, { email, company: 'Pending Inc' })).text).toBe(res.text);

    const confirmed = await h.http.post(new URL(confirmUrl).pathname).type('form').send('');
    expect(confirmed.status).toBe(200);
    expect((await contactByEmail(email, fx)).subscribed).toBe(true);
    expect(await contactEvents(contact.id)).toEqual([['contact.subscribed', 'double_opt_in']]);
  });
});

describe('rate limits', () => {
  let limited: Harness;
  let fx: ProjectFixture;
  beforeAll(async () => {
    limited = await startHarness({ env: { APP_URL: `${APP}/`, FORM_RATE_LIMIT_PER_MINUTE: '2', FORM_SUBMISSIONS_PER_MINUTE: '3' } });
    fx = await createProjectFixture(limited, 'forms-limits');
  });
  afterAll(() => limited?.stop());

  const post = (formId: string, ip: string, email = uniqueEmail('rl')) =>
    limited.http.post(`/f/${formId}`).set(FOREIGN).set('X-Forwarded-For', ip).type('form').send(new URLSearchParams({ email }).toString());
  const form = async () => (await limited.http.post('/forms').set(bearer(fx.secretKey)).send({ name: 'Limited' })).body.id as string;

  it('refuses a client address past its limit with a 429 page', async () => {
    const id = await form();
    const ip = randomIp();
    expect((await post(id, ip)).status).toBe(200);
    expect((await post(id, ip)).status).toBe(200);
    const email = uniqueEmail('refused');
    const refused = await post(id, ip, email);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(refused.headers['content-type']).toMatch(/text\/html/);
    expect(refused.text).toContain('Too many signups');
    expect(await limited.deps.knex('contacts').where({ project_id: fx.projectId, email }).first()).toBeUndefined();
    // Another address still gets through.
    expect((await post(id, randomIp())).status).toBe(200);
  });

  it('refuses a form past its own limit, whatever the address', async () => {
    const id = await form();
    for (let i = 0; i < 3; i++) expect((await post(id, randomIp())).status).toBe(200);
    expect((await post(id, randomIp())).status).toBe(429);
  });
});
