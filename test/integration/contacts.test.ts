import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';
import { upsertContact } from '../../db/contactWriters';

let h: Harness;
let p: ProjectFixture;

beforeAll(async () => {
  h = await startHarness();
  p = await createProjectFixture(h);
});
afterAll(() => h?.stop());

let seq = 0;
const uniqueEmail = (tag = 'c') => `${tag}-${Date.now()}-${seq++}@example.test`;

const api = (key = p.secretKey) => ({
  create: (body: object) => h.http.post('/contacts').set(bearer(key)).send(body),
  get: (id: string) => h.http.get(`/contacts/${id}`).set(bearer(key)),
  patch: (id: string, body: object) => h.http.patch(`/contacts/${id}`).set(bearer(key)).send(body),
  del: (id: string) => h.http.delete(`/contacts/${id}`).set(bearer(key)),
  list: (query: Record<string, string | number> = {}) => h.http.get('/contacts').query(query).set(bearer(key)),
  fields: () => h.http.get('/contacts/fields').set(bearer(key)),
});

async function created(body: object, key?: string) {
  const res = await api(key).create(body);
  expect(res.status).toBe(201);
  return res.body;
}

describe('POST /contacts', () => {
  it('creates with 201 and _meta.isNew, then upserts by email with 200 and _meta.isUpdate', async () => {
    const email = uniqueEmail('Up');
    const first = await api().create({ email: `  ${email.toUpperCase()} `, data: { plan: 'free' } });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      id: expect.stringMatching(/^cnt_/),
      email: email.toLowerCase(),
      subscribed: true,
      data: { plan: 'free' },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      _meta: { isNew: true, isUpdate: false },
    });
    const second = await api().create({ email, data: { seats: 2 } });
    expect(second.status).toBe(200);
    expect(second.body.id).toBe(first.body.id);
    expect(second.body._meta).toEqual({ isNew: false, isUpdate: true });
    expect(second.body.data).toEqual({ plan: 'free', seats: 2 });
  });

  it('defaults a new contact to subscribed and lets the body say otherwise', async () => {
    expect((await created({ email: uniqueEmail() })).subscribed).toBe(true);
    expect((await created({ email: uniqueEmail(), subscribed: false })).subscribed).toBe(false);
  });

  it('answers validation failures with 400 and the flat { error } body', async () => {
    const missing = await api().create({ data: {} });
    expect(missing.status).toBe(400);
    // The sentence names its field (lib/zodSentences.ts), so it needs no `email: ` in front.
    expect(missing.body).toEqual({ error: 'Email is required' });
    const bad = await api().create({ email: 'not-an-email' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^email: /);
    const tooMany = await api().create({ email: uniqueEmail(), data: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i])) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatch(/^data: .*100 keys/);
    const dotted = await api().create({ email: uniqueEmail(), data: { 'a.b': 1 } });
    expect(dotted.status).toBe(400);
    expect(dotted.body.error).toMatch(/^data\.a\.b: /);
  });
});

describe('contact data rules', () => {
  it('patches: other keys kept, null deletes, "" keeps the existing value', async () => {
    const c = await created({ email: uniqueEmail(), data: { a: 1, b: 'two', c: true } });
    const res = await api().patch(c.id, { data: { a: 10, b: '', c: null, d: 'new' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ a: 10, b: 'two', d: 'new' });
    const again = await api().get(c.id);
    expect(again.body.data).toEqual({ a: 10, b: 'two', d: 'new' });
  });

  it('never stores reserved keys or one-off values, and stores nested objects', async () => {
    const c = await created({
      email: uniqueEmail(),
      data: {
        email: 'x@y.z',
        id: 'mine',
        svc_id: 1,
        svc_email: 'x',
        unsubscribeUrl: 'http://evil',
        subscribeUrl: 'x',
        manageUrl: 'x',
        coupon: { value: 'ONCE', persistent: false },
        profile: { tier: 'gold', address: { city: 'Oslo' } },
        locale: 'fr',
      },
    });
    expect(c.data).toEqual({ profile: { tier: 'gold', address: { city: 'Oslo' } }, locale: 'fr' });
    const row = await h.deps.knex('contacts').where({ id: c.id }).first();
    expect(row.data).toEqual(c.data);
  });

  it('fixes a key type by its first value; later values of another type are still stored', async () => {
    const own = await createProjectFixture(h, 'types');
    const a = await created({ email: uniqueEmail(), data: { score: 5, since: '2024-01-02', profile: { tier: 'gold' } } }, own.secretKey);
    const b = await created({ email: uniqueEmail(), data: { score: 'high', since: 7 } }, own.secretKey);
    expect(b.data).toEqual({ score: 'high', since: 7 });
    const registry = await h.deps.knex('contact_fields').where({ project_id: own.projectId }).orderBy('key').select('key', 'type');
    expect(registry).toEqual([
      { key: 'profile.tier', type: 'string' },
      { key: 'score', type: 'number' },
      { key: 'since', type: 'date' },
    ]);
    expect(a.data.score).toBe(5);
  });

  it('creates one contact from 12 concurrent upserts of a new email and keeps every key', async () => {
    const email = uniqueEmail('race');
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => api().create({ email, data: { [`k${i}`]: i } })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 200)).toHaveLength(11);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    const rows = await h.deps.knex('contacts').where({ project_id: p.projectId, email });
    expect(rows).toHaveLength(1);
    expect(rows[0].data).toEqual(Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`k${i}`, i])));
  });

  it('leaves a contact untouched, updated_at included, when an upsert changes nothing', async () => {
    const email = uniqueEmail();
    const first = await created({ email, data: { plan: 'pro' } });
    const again = await api().create({ email, data: { plan: 'pro', ignored: '' } });
    expect(again.status).toBe(200);
    expect(again.body.updatedAt).toBe(first.updatedAt);
  });

  it('keeps every key of 10 concurrent PATCHes of different keys', async () => {
    const c = await created({ email: uniqueEmail(), data: { base: true } });
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => api().patch(c.id, { data: { [`k${i}`]: i } })));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    const after = await api().get(c.id);
    expect(after.body.data).toEqual({ base: true, ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, i])) });
  });
});

describe('subscription', () => {
  const eventsOf = (contactId: string) => h.deps.knex('events').where({ contact_id: contactId }).orderBy('created_at').select('name', 'project_id');

  it('records exactly one event per flip through PATCH, none for no-op or omitted subscribed', async () => {
    const c = await created({ email: uniqueEmail() });
    expect(await eventsOf(c.id)).toEqual([]);
    const off = await api().patch(c.id, { subscribed: false });
    expect(off.body.subscribed).toBe(false);
    await api().patch(c.id, { subscribed: false });
    const kept = await api().patch(c.id, { data: { x: 1 } });
    expect(kept.body.subscribed).toBe(false);
    const on = await api().patch(c.id, { subscribed: true });
    expect(on.body.subscribed).toBe(true);
    expect(await eventsOf(c.id)).toEqual([
      { name: 'contact.unsubscribed', project_id: p.projectId },
      { name: 'contact.subscribed', project_id: p.projectId },
    ]);
    // Each flip is handed to routeEvent, so workflows triggered by it start.
    const client = await h.deps.temporal.client();
    for (const e of await h.deps.knex('events').where({ contact_id: c.id }).select('id')) {
      const wf = await client.workflow.getHandle(`event-${e.id}`).describe();
      expect(wf.type).toBe('routeEvent');
    }
  });

  it('keeps a committed flip when Temporal cannot take its event now (the sweep routes it later)', async () => {
    const c = await created({ email: uniqueEmail() });
    const down = await startHarness({ temporalAddress: '127.0.0.1:1' });
    try {
      const res = await down.http.patch(`/contacts/${c.id}`).set(bearer(p.secretKey)).send({ subscribed: false });
      expect(res.status).toBe(200);
      expect(res.body.subscribed).toBe(false);
      const [event] = await h.deps.knex('events').where({ contact_id: c.id, name: 'contact.unsubscribed' });
      expect(event.routed_at).toBeNull();
    } finally {
      await down.stop();
    }
  }, 60_000);

  it('keeps the state when an upsert omits subscribed and records a flip made by an upsert', async () => {
    const email = uniqueEmail();
    const c = await created({ email, subscribed: false });
    const again = await api().create({ email, data: { y: 1 } });
    expect(again.body.subscribed).toBe(false);
    expect(await eventsOf(c.id)).toEqual([]);
    const flipped = await api().create({ email, subscribed: true });
    expect(flipped.body.subscribed).toBe(true);
    expect((await eventsOf(c.id)).map((e: any) => e.name)).toEqual(['contact.subscribed']);
  });

  it('records one event per real flip when 40 upserts race to flip the same contact', async () => {
    const email = uniqueEmail();
    const c = await created({ email });
    // Straight to the writer, so the statements overlap as much as they can.
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        upsertContact(h.deps.knex, { projectId: p.projectId, email, subscribed: i % 2 === 1, defaultSubscribed: true, source: 'api' }),
      ),
    );
    // Each upsert saw the true previous state (row lock), so the flips recorded lead from the
    // initial state (subscribed) to the stored one: as many of each direction, plus the last.
    const names = (await h.deps.knex('events').where({ contact_id: c.id }).select('name')).map((e: any) => e.name);
    const final = (await h.deps.knex('contacts').where({ id: c.id }).first()).subscribed;
    expect(names.length).toBeGreaterThan(0);
    expect(names.filter((n: string) => n === 'contact.unsubscribed').length - names.filter((n: string) => n === 'contact.subscribed').length).toBe(
      final ? 0 : 1,
    );
    expect(results.reduce((n, r) => n + r.events.length, 0)).toBe(names.length);
  });

  it('judges a flip against what a concurrent writer committed while the upsert waited for the row', async () => {
    const email = uniqueEmail();
    const c = await created({ email });
    const trx = await h.deps.knex.transaction();
    await trx('contacts').where({ id: c.id }).update({ subscribed: false });
    // Starts while the row is locked and still reads subscribed=true in its snapshot.
    const upsert = upsertContact(h.deps.knex, { projectId: p.projectId, email, subscribed: true, defaultSubscribed: true, source: 'api' });
    await new Promise((r) => setTimeout(r, 300));
    await trx.commit();
    const result = await upsert;
    expect(result.contact.subscribed).toBe(true);
    expect(result.events.map((e) => e.name)).toEqual(['contact.subscribed']);
  });
});

describe('GET, PATCH, DELETE /contacts/:id', () => {
  it('gets a contact and answers 404 envelopes for unknown or malformed ids', async () => {
    const c = await created({ email: uniqueEmail() });
    const got = await api().get(c.id);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      id: c.id,
      email: c.email,
      subscribed: true,
      data: {},
      topics: {},
      pending: false,
      createdAt: c.createdAt,
      updatedAt: c.updatedAt,
    });
    const missing = await api().get('cnt_doesnotexist');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
    expect((await api().get('not-a-contact-id')).status).toBe(404);
  });

  it('changes the email, and answers 409 CONFLICT when another contact has it', async () => {
    const a = await created({ email: uniqueEmail() });
    const b = await created({ email: uniqueEmail() });
    const clash = await api().patch(b.id, { email: a.email.toUpperCase() });
    expect(clash.status).toBe(409);
    expect(clash.body.error.code).toBe('CONFLICT');
    const fresh = uniqueEmail('moved');
    const moved = await api().patch(b.id, { email: fresh });
    expect(moved.status).toBe(200);
    expect(moved.body.email).toBe(fresh);
    // Its own current email is no conflict.
    expect((await api().patch(b.id, { email: fresh })).status).toBe(200);
  });

  it('uses the flat { error } body for PATCH validation', async () => {
    const c = await created({ email: uniqueEmail() });
    const res = await api().patch(c.id, { subscribed: 'yes' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Subscribed must be yes or no (true or false)' });
  });

  it('deletes with 204 and an empty body, then 404', async () => {
    const c = await created({ email: uniqueEmail() });
    const del = await api().del(c.id);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await api().get(c.id)).status).toBe(404);
    expect((await api().del(c.id)).status).toBe(404);
  });

  it("hides another project's contacts (404 on get, patch and delete)", async () => {
    const other = await createProjectFixture(h, 'other');
    const c = await created({ email: uniqueEmail() });
    expect((await api(other.secretKey).get(c.id)).status).toBe(404);
    expect((await api(other.secretKey).patch(c.id, { data: { x: 1 } })).status).toBe(404);
    expect((await api(other.secretKey).del(c.id)).status).toBe(404);
    expect((await api().get(c.id)).body.data).toEqual({});
  });
});

describe('GET /contacts', () => {
  let list: ReturnType<typeof api>;
  let emails: string[];

  beforeAll(async () => {
    const own = await createProjectFixture(h, 'listing');
    list = api(own.secretKey);
    emails = ['b@list.test', 'D@list.test', 'a@list.test', 'e@other.test', 'c@list.test'];
    // Sequential, so creation order is the array order.
    for (const [i, email] of emails.entries()) await created({ email, subscribed: i % 2 === 0 }, own.secretKey);
    emails = emails.map((e) => e.toLowerCase());
  });

  it('walks 3 pages of 2 by cursor with no duplicates or gaps; total on the first page only', async () => {
    const first = await list.list({ limit: 2 });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ total: 5, hasMore: true, cursor: expect.any(String) });
    const second = await list.list({ limit: 2, cursor: first.body.cursor });
    expect(second.body).toMatchObject({ total: 0, hasMore: true });
    const third = await list.list({ limit: 2, cursor: second.body.cursor });
    expect(third.body).toMatchObject({ total: 0, hasMore: false, cursor: null });
    const seen = [...first.body.data, ...second.body.data, ...third.body.data].map((c: any) => c.email);
    // Newest first by default.
    expect(seen).toEqual([...emails].reverse());
  });

  it('sorts by email ascending across pages', async () => {
    const a = await list.list({ limit: 3, sort: 'email', dir: 'asc' });
    const b = await list.list({ limit: 3, sort: 'email', dir: 'asc', cursor: a.body.cursor });
    expect([...a.body.data, ...b.body.data].map((c: any) => c.email)).toEqual([...emails].sort());
    expect(b.body.hasMore).toBe(false);
  });

  it('falls back to createdAt desc for unknown sort and dir', async () => {
    const res = await list.list({ sort: 'shoeSize', dir: 'sideways' });
    expect(res.status).toBe(200);
    expect(res.body.data.map((c: any) => c.email)).toEqual([...emails].reverse());
  });

  it('searches email case-insensitively and filters by subscription', async () => {
    const found = await list.list({ search: 'LIST.TEST', sort: 'email', dir: 'asc' });
    expect(found.body.data.map((c: any) => c.email)).toEqual(['a@list.test', 'b@list.test', 'c@list.test', 'd@list.test']);
    expect(found.body.total).toBe(4);
    // A LIKE wildcard in the search is a literal character.
    expect((await list.list({ search: '%' })).body.total).toBe(0);
    const subscribed = await list.list({ subscribed: 'true', sort: 'email', dir: 'asc' });
    expect(subscribed.body.data.map((c: any) => c.email)).toEqual(['a@list.test', 'b@list.test', 'c@list.test']);
    const unsubscribed = await list.list({ subscribed: 'false' });
    expect(unsubscribed.body.total).toBe(2);
  });

  it('clamps limit above 100 to 100', async () => {
    const own = await createProjectFixture(h, 'many');
    const rows = Array.from({ length: 105 }, (_, i) => ({ id: `cnt_bulk${i}`, project_id: own.projectId, email: `bulk${i}@example.test` }));
    await h.deps.knex('contacts').insert(rows);
    const res = await api(own.secretKey).list({ limit: 500 });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(100);
    expect(res.body).toMatchObject({ hasMore: true, total: 105 });
    // Without a limit a page holds 20.
    expect((await api(own.secretKey).list()).body.data).toHaveLength(20);
  });

  it('answers 400 BAD_REQUEST for a malformed cursor or a cursor of another sort', async () => {
    const bad = await list.list({ cursor: 'garbage' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('BAD_REQUEST');
    const first = await list.list({ limit: 1 });
    const mixed = await list.list({ limit: 1, sort: 'email', cursor: first.body.cursor });
    expect(mixed.status).toBe(400);
  });

  it('answers 400 BAD_REQUEST for a bad limit or subscribed value', async () => {
    expect((await list.list({ limit: 'many' })).status).toBe(400);
    expect((await list.list({ subscribed: 'maybe' })).status).toBe(400);
  });
});

describe('GET /contacts/fields', () => {
  it('lists standard fields and registered custom ones with their coverage', async () => {
    const own = await createProjectFixture(h, 'fields');
    await created({ email: uniqueEmail(), data: { plan: 'pro', profile: { tier: 'gold' } } }, own.secretKey);
    await created({ email: uniqueEmail(), data: { plan: 'free', signup: '2024-03-04T05:06:07Z' } }, own.secretKey);
    await created({ email: uniqueEmail(), data: { seats: 4 } }, own.secretKey);
    const fourth = await created({ email: uniqueEmail(), data: { seats: 'n/a', vip: true } }, own.secretKey);
    // A deleted key no longer counts toward coverage, yet stays registered.
    await api(own.secretKey).patch(fourth.id, { data: { vip: null } });

    const res = await api(own.secretKey).fields();
    expect(res.status).toBe(200);
    expect(res.body.fields).toEqual([
      { field: 'email', type: 'string', isCustom: false, coverage: 1 },
      { field: 'subscribed', type: 'boolean', isCustom: false, coverage: 1 },
      { field: 'createdAt', type: 'date', isCustom: false, coverage: 1 },
      { field: 'updatedAt', type: 'date', isCustom: false, coverage: 1 },
      { field: 'data.plan', type: 'string', isCustom: true, coverage: 0.5 },
      { field: 'data.profile.tier', type: 'string', isCustom: true, coverage: 0.25 },
      { field: 'data.seats', type: 'number', isCustom: true, coverage: 0.5 },
      { field: 'data.signup', type: 'date', isCustom: true, coverage: 0.25 },
      { field: 'data.vip', type: 'boolean', isCustom: true, coverage: 0 },
    ]);
  });

  it('is not mistaken for a contact id', async () => {
    const own = await createProjectFixture(h, 'empty');
    const res = await api(own.secretKey).fields();
    expect(res.status).toBe(200);
    expect(res.body.fields.map((f: any) => f.field)).toEqual(['email', 'subscribed', 'createdAt', 'updatedAt']);
  });
});

describe('field sentences in the language the request asks for (Accept-Language)', () => {
  const badView = { name: '', columns: ['email', 'nope'] };
  const createView = (language?: string) => {
    const req = h.http.post('/contact-views').set(bearer(p.secretKey));
    return (language === undefined ? req : req.set('Accept-Language', language)).send(badView);
  };
  const details = (res: { body: { error: { errors: Array<{ field: string; message: string; code: string }> } } }) => res.body.error.errors;

  it('answers a 422 in English without the header, word for word as before', async () => {
    const res = await createView();
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'Request validation failed' });
    expect(details(res)).toEqual([
      { field: 'name', message: 'Name is required', code: 'too_small', received: '' },
      {
        field: 'columns.1',
        message: 'a column is id, email, subscribed, createdAt, updatedAt or data.<key>[.<key>…]',
        code: 'invalid_string',
        received: 'nope',
      },
    ]);
    // A language the API does not speak is English too.
    expect(details(await createView('es'))).toEqual(details(res));
  });

  it('answers the same 422 in French or German, its shape and codes unchanged', async () => {
    const english = details(await createView());
    const fr = await createView('fr');
    expect(fr.status).toBe(422);
    expect(fr.headers.vary).toMatch(/Accept-Language/);
    expect(fr.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'Request validation failed' });
    expect(details(fr)).toEqual([
      { field: 'name', message: 'Le champ « Nom » est obligatoire', code: 'too_small', received: '' },
      {
        field: 'columns.1',
        message: 'une colonne est id, email, subscribed, createdAt, updatedAt ou data.<clé>[.<clé>…]',
        code: 'invalid_string',
        received: 'nope',
      },
    ]);
    const de = await createView('de-DE');
    expect(details(de).map((e) => e.message)).toEqual([
      'Das Feld „Name“ ist erforderlich',
      'eine Spalte ist id, email, subscribed, createdAt, updatedAt oder data.<Schlüssel>[.<Schlüssel>…]',
    ]);
    for (const res of [fr, de]) expect(details(res).map(({ field, code }) => ({ field, code }))).toEqual(english.map(({ field, code }) => ({ field, code })));
  });

  it('picks the best of en, fr and de by the header’s q-values, a regional tag counting as its language', async () => {
    expect(details(await createView('fr-CH;q=0.9, de;q=0.8'))[0].message).toBe('Le champ « Nom » est obligatoire');
    expect(details(await createView('fr;q=0.5, de-AT;q=0.8, es'))[0].message).toBe('Das Feld „Name“ ist erforderlich');
    expect(details(await createView('fr;q=0.5, en;q=0.9'))[0].message).toBe('Name is required');
  });

  it('speaks it in the flat `{ error }` bodies too', async () => {
    const flat = (language: string) => h.http.post('/contacts').set(bearer(p.secretKey)).set('Accept-Language', language).send({ data: {} });
    expect((await flat('fr')).body).toEqual({ error: 'Le champ « E-mail » est obligatoire' });
    expect((await flat('de')).body).toEqual({ error: 'Das Feld „E-Mail“ ist erforderlich' });
    const bad = await h.http.post('/contacts').set(bearer(p.secretKey)).set('Accept-Language', 'fr').send({ email: 'not-an-email' });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'email: Saisissez une adresse e-mail valide' });
  });
});
