import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';
import { linksFor, signSubscriptionToken, verifySubscriptionToken } from '../../lib/unsubscribe';

let h: Harness;
let p: ProjectFixture;

beforeAll(async () => {
  h = await startHarness();
  p = await createProjectFixture(h);
});
afterAll(() => h?.stop());

async function newContact(email: string) {
  const res = await h.http.post('/contacts').set(bearer(p.secretKey)).send({ email, subscribed: true });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const subscribed = async (id: string) => (await h.http.get(`/contacts/${id}`).set(bearer(p.secretKey))).body.subscribed;
const eventNames = async (id: string) =>
  (await h.deps.knex('events').where({ contact_id: id }).orderBy('created_at').select('name')).map((r: { name: string }) => r.name);
const pathOf = (url: string) => new URL(url).pathname;

describe('subscription tokens', () => {
  it('round-trip and refuse any alteration or another secret', () => {
    const t = { projectId: p.projectId, contactId: 'cnt_abc' };
    const token = signSubscriptionToken('secret-one-0123456789', t);
    expect(verifySubscriptionToken('secret-one-0123456789', token)).toEqual(t);
    expect(verifySubscriptionToken('secret-two-0123456789', token)).toBeNull();
    const [payload, sig] = token.split('.');
    const flipped = sig.slice(0, -1) + (sig.endsWith('A') ? 'B' : 'A');
    expect(verifySubscriptionToken('secret-one-0123456789', `${payload}.${flipped}`)).toBeNull();
    const otherPayload = Buffer.from(JSON.stringify([p.projectId, 'cnt_other'])).toString('base64url');
    expect(verifySubscriptionToken('secret-one-0123456789', `${otherPayload}.${sig}`)).toBeNull();
    expect(verifySubscriptionToken('secret-one-0123456789', `${token}.x`)).toBeNull();
  });

  it('builds the three links under APP_URL', () => {
    const links = linksFor(h.config, p.projectId, 'cnt_abc');
    for (const [key, prefix] of [
      ['unsubscribeUrl', '/unsubscribe/'],
      ['subscribeUrl', '/subscribe/'],
      ['manageUrl', '/manage/'],
    ] as const) {
      expect(links[key].startsWith(`${h.config.appUrl}${prefix}`)).toBe(true);
    }
  });
});

describe('subscription links', () => {
  it("speak the contact's language (its locale: exact, then the language alone, else English)", async () => {
    const res = await h.http
      .post('/contacts')
      .set(bearer(p.secretKey))
      .send({ email: 'lena@example.test', subscribed: true, data: { locale: 'de_AT' } });
    expect(res.status).toBe(201);
    const german = linksFor(h.config, p.projectId, res.body.id);
    const ask = await h.http.get(pathOf(german.unsubscribeUrl));
    expect(ask.text).toContain('<html lang="de">');
    expect(ask.text).toContain('<title>Abmelden?</title>');
    expect(ask.text).toContain('Drücken Sie die Schaltfläche, um diese E-Mails an lena@example.test nicht mehr zu erhalten.');
    const done = await h.http.post(pathOf(german.unsubscribeUrl)).type('form').send('');
    expect(done.text).toContain('<h1>Sie wurden abgemeldet</h1>');
    expect(done.text).toContain('<button type="submit">Wieder anmelden</button>');
    expect((await h.http.get(pathOf(german.manageUrl))).text).toContain('<h1>Ihre E-Mail-Einstellungen</h1>');

    const fr = await h.http
      .post('/contacts')
      .set(bearer(p.secretKey))
      .send({ email: 'zoe@example.test', subscribed: true, data: { locale: 'fr' } });
    const french = await h.http.get(pathOf(linksFor(h.config, p.projectId, fr.body.id).manageUrl));
    expect(french.text).toContain('<html lang="fr">');
    expect(french.text).toContain('zoe@example.test est abonné à ces e-mails.');

    // A language without a catalogue, and none at all: English.
    const es = await h.http
      .post('/contacts')
      .set(bearer(p.secretKey))
      .send({ email: 'ana@example.test', subscribed: true, data: { locale: 'es-ES' } });
    const spanish = await h.http.get(pathOf(linksFor(h.config, p.projectId, es.body.id).unsubscribeUrl));
    expect(spanish.text).toContain('<html lang="en">');
    expect(spanish.text).toContain('<title>Unsubscribe?</title>');
  });

  it('changes nothing on GET: the pages show what the button will do, and the button POSTs to the same link', async () => {
    const id = await newContact('link-scanner@example.test');
    const links = linksFor(h.config, p.projectId, id);
    const formTo = (url: string) => `<form method="post" action="${url}">`;

    // What a mail scanner or link preview does: open every link, including the subscribe one.
    for (const url of [links.unsubscribeUrl, links.subscribeUrl, links.manageUrl]) {
      const res = await h.http.get(pathOf(url));
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(res.headers['content-security-policy']).toMatch(/default-src 'none'/);
      expect(res.text).not.toMatch(/<script/i);
    }
    expect(await subscribed(id)).toBe(true);
    expect(await eventNames(id)).toEqual([]);

    const off = await h.http.get(pathOf(links.unsubscribeUrl));
    expect(off.text).toContain('Press the button to stop receiving these emails at link-scanner@example.test.');
    expect(off.text).toContain(formTo(links.unsubscribeUrl));
    const on = await h.http.get(pathOf(links.subscribeUrl));
    expect(on.text).toContain('Press the button to receive these emails at link-scanner@example.test again.');
    expect(on.text).toContain(formTo(links.subscribeUrl));
  });

  it("unsubscribes and resubscribes through the pages' form POSTs, and records both events", async () => {
    const id = await newContact('link-user@example.test');
    const links = linksFor(h.config, p.projectId, id);

    const manage = await h.http.get(pathOf(links.manageUrl));
    expect(manage.status).toBe(200);
    expect(manage.headers['content-type']).toMatch(/text\/html/);
    expect(manage.text).toContain('link-user@example.test is subscribed');
    expect(manage.text).toContain(`<form method="post" action="${links.unsubscribeUrl}">`);

    // The browser's form submission: no body beyond the button.
    const off = await h.http.post(pathOf(links.unsubscribeUrl)).type('form').send('');
    expect(off.status).toBe(200);
    expect(off.headers['content-type']).toMatch(/text\/html/);
    expect(off.text).toContain('You have been unsubscribed');
    expect(off.text).toContain(`<form method="post" action="${links.subscribeUrl}">`);
    expect(await subscribed(id)).toBe(false);

    // A second press changes nothing and records nothing.
    expect((await h.http.post(pathOf(links.unsubscribeUrl)).type('form').send('')).status).toBe(200);
    expect(await eventNames(id)).toEqual(['contact.unsubscribed']);

    const on = await h.http.post(pathOf(links.subscribeUrl)).type('form').send('');
    expect(on.status).toBe(200);
    expect(on.text).toContain('You are subscribed');
    expect(await subscribed(id)).toBe(true);
    expect(await eventNames(id)).toEqual(['contact.unsubscribed', 'contact.subscribed']);
  });

  it('does the RFC 8058 one-click POST', async () => {
    const id = await newContact('one-click@example.test');
    const { unsubscribeUrl } = linksFor(h.config, p.projectId, id);
    const res = await h.http.post(pathOf(unsubscribeUrl)).type('form').send('List-Unsubscribe=One-Click');
    expect(res.status).toBe(200);
    expect(await subscribed(id)).toBe(false);
    expect(await eventNames(id)).toEqual(['contact.unsubscribed']);
  });

  it('answers 404 for forged, foreign-secret and dangling tokens', async () => {
    const id = await newContact('forged@example.test');
    const token = pathOf(linksFor(h.config, p.projectId, id).unsubscribeUrl)
      .split('/')
      .pop()!;
    const [payload] = token.split('.');
    const forged = [
      `${payload}.${'A'.repeat(43)}`,
      signSubscriptionToken('some-other-secret-0123456789', { projectId: p.projectId, contactId: id }),
      'garbage',
    ];
    for (const bad of forged) {
      for (const res of [
        await h.http.get(`/unsubscribe/${bad}`),
        await h.http.post(`/unsubscribe/${bad}`).type('form').send('List-Unsubscribe=One-Click'),
        await h.http.get(`/subscribe/${bad}`),
        await h.http.post(`/subscribe/${bad}`).type('form').send(''),
        await h.http.get(`/manage/${bad}`),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND', statusCode: 404 } });
      }
    }
    expect(await subscribed(id)).toBe(true);

    await h.http.delete(`/contacts/${id}`).set(bearer(p.secretKey));
    expect((await h.http.get(`/unsubscribe/${token}`)).status).toBe(404);
    expect((await h.http.post(`/unsubscribe/${token}`).type('form').send('List-Unsubscribe=One-Click')).status).toBe(404);
    expect((await h.http.get(`/manage/${token}`)).status).toBe(404);
  });
});
