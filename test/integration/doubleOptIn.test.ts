import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { confirmUrlFor, linksFor } from '../../lib/unsubscribe';
import { maintenanceActivities } from '../../activities/maintenance';

/** Double opt-in (docs/api.md "Double opt-in"): a subscription waits for the person's confirmation. */

let h: Harness;
const DOMAIN = 'optin.example.com';

beforeAll(async () => {
  h = await startHarness({ worker: true });
});
afterAll(() => h?.stop());

const pathOf = (url: string) => new URL(url).pathname;

async function project(doubleOptIn?: Record<string, unknown>): Promise<ProjectFixture> {
  const fx = await createProjectFixture(h);
  await verifiedDomain(h, fx.projectId, DOMAIN);
  if (doubleOptIn) {
    const res = await h.http.patch('/settings').set(bearer(fx.secretKey)).send({ doubleOptIn });
    expect(res.status).toBe(200);
  }
  return fx;
}

/** The confirmation email the contact was sent, once delivered (the log transport keeps the rendered body). */
const confirmationOf = (contactId: string) =>
  eventually(async () => {
    const row = await h.deps.knex('emails').where({ contact_id: contactId }).orderBy('created_at', 'desc').first();
    return row?.status === 'SENT' ? row : null;
  });

const contactOf = async (fx: ProjectFixture, id: string) => (await h.http.get(`/contacts/${id}`).set(bearer(fx.secretKey))).body;
const eventsOf = async (id: string) =>
  (await h.deps.knex('events').where({ contact_id: id }).andWhere('name', 'like', 'contact.%').orderBy('created_at').select('name', 'data')).map((e: any) => [
    e.name,
    e.data.source,
  ]);

describe('double opt-in settings', () => {
  it('are off by default, need a verified sender and a template of the project, and turn off with null', async () => {
    const fx = await project();
    const key = bearer(fx.secretKey);
    expect((await h.http.get('/settings').set(key)).body.doubleOptIn).toBeNull();
    expect(
      (
        await h.http
          .patch('/settings')
          .set(key)
          .send({ doubleOptIn: { enabled: true, from: 'hi@unverified.example.net' } })
      ).status,
    ).toBe(403);
    const badTemplate = await h.http
      .patch('/settings')
      .set(key)
      .send({ doubleOptIn: { enabled: true, from: `hi@${DOMAIN}`, templateId: '00000000-0000-4000-8000-000000000000' } });
    expect(badTemplate.status).toBe(422);
    const ok = await h.http
      .patch('/settings')
      .set(key)
      .send({ doubleOptIn: { enabled: true, from: `hi@${DOMAIN}` } });
    expect(ok.body.doubleOptIn).toEqual({ enabled: true, from: `hi@${DOMAIN}`, fromName: null, templateId: null, expiryHours: 72 });
    expect((await h.http.patch('/settings').set(key).send({ timezone: 'Europe/Paris' })).body.doubleOptIn).toMatchObject({ enabled: true });
    expect((await h.http.patch('/settings').set(key).send({ doubleOptIn: null })).body.doubleOptIn).toBeNull();
    // Asking for it per request without settings is refused.
    const refused = await h.http.post('/contacts').set(key).send({ email: uniqueEmail(), doubleOptIn: true });
    expect(refused.status).toBe(422);
    expect(refused.body.error.errors[0].field).toBe('doubleOptIn');
  });
});

describe('confirmation', () => {
  it('holds a per-request subscription, mails the link, and subscribes only on the button press (source double_opt_in)', async () => {
    const fx = await project({ enabled: false, from: `hi@${DOMAIN}`, fromName: 'Opt-in' });
    const key = bearer(fx.secretKey);
    const created = await h.http
      .post('/contacts')
      .set(key)
      .send({ email: uniqueEmail('doi'), subscribed: true, doubleOptIn: true });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ subscribed: false, pending: true });
    const id = created.body.id;

    const mail = await confirmationOf(id);
    expect(mail).toMatchObject({
      from_email: `hi@${DOMAIN}`,
      from_name: 'Opt-in',
      to_email: created.body.email,
      type: 'TRANSACTIONAL',
      subject: 'Please confirm your subscription',
    });
    const confirmUrl = confirmUrlFor(h.config, fx.projectId, id);
    expect(mail.rendered_body).toContain(`href="${confirmUrl}"`);

    // A GET (a link scanner's) shows the button and changes nothing.
    const page = await h.http.get(pathOf(confirmUrl));
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<form method="post" action="${confirmUrl}"><button type="submit">Confirm subscription</button></form>`);
    expect(page.text).not.toMatch(/<script/i);
    expect((await contactOf(fx, id)).subscribed).toBe(false);
    // A subscription link of the same contact cannot stand in for it, nor the reverse.
    const subscribeToken = pathOf(linksFor(h.config, fx.projectId, id).subscribeUrl)
      .split('/')
      .pop();
    expect((await h.http.post(`/confirm/${subscribeToken}`).type('form').send('')).status).toBe(404);
    expect(
      (
        await h.http
          .post(`/subscribe/${pathOf(confirmUrl).split('/').pop()}`)
          .type('form')
          .send('')
      ).status,
    ).toBe(404);

    const done = await h.http.post(pathOf(confirmUrl)).set('User-Agent', 'Browser/1').type('form').send('');
    expect(done.status).toBe(200);
    expect(done.text).toContain('Your subscription is confirmed');
    expect(await contactOf(fx, id)).toMatchObject({ subscribed: true, pending: false });
    expect(await eventsOf(id)).toEqual([['contact.subscribed', 'double_opt_in']]);
    const consent = (await h.http.get(`/contacts/${id}/consent`).set(key)).body.data;
    expect(consent.map((r: any) => [r.value, r.source, r.userAgent])).toEqual([
      [false, 'api', null],
      [true, 'double_opt_in', 'Browser/1'],
    ]);

    // The link works once.
    expect((await h.http.post(pathOf(confirmUrl)).type('form').send('')).status).toBe(410);
    expect((await h.http.get(pathOf(confirmUrl))).status).toBe(410);
  });

  it('applies to every new subscription when enabled, on /v1/track too, unless a request opts out; subscribed contacts are left alone', async () => {
    const fx = await project({ enabled: true, from: `hi@${DOMAIN}` });
    const key = bearer(fx.secretKey);
    const email = uniqueEmail('track');
    const tracked = await h.http.post('/v1/track').set(bearer(fx.publicKey)).send({ email, event: 'signed-up' });
    expect(tracked.status).toBe(200);
    const id = tracked.body.data.contact;
    expect(await contactOf(fx, id)).toMatchObject({ subscribed: false, pending: true });
    await confirmationOf(id);

    const direct = await h.http
      .post('/contacts')
      .set(key)
      .send({ email: uniqueEmail('direct'), doubleOptIn: false });
    expect(direct.body).toMatchObject({ subscribed: true, pending: false });
    // Not asked to subscribe: nothing to confirm.
    const quiet = await h.http
      .post('/contacts')
      .set(key)
      .send({ email: uniqueEmail('quiet'), subscribed: false });
    expect(quiet.body).toMatchObject({ subscribed: false, pending: false });

    // An already subscribed contact needs no confirmation and gets no email.
    const again = await h.http.post('/contacts').set(key).send({ email: direct.body.email, subscribed: true });
    expect(again.body).toMatchObject({ subscribed: true, pending: false });
    expect(
      await h.deps
        .knex('emails')
        .where({ contact_id: direct.body.id })
        .count('* as n')
        .then((r) => Number(r[0].n)),
    ).toBe(0);
  });

  it('uses the chosen template, and an expired link neither subscribes nor survives the maintenance sweep', async () => {
    const fx = await project();
    const key = bearer(fx.secretKey);
    const template = await h.http
      .post('/templates')
      .set(key)
      .send({
        name: 'confirm',
        subject: 'Confirm, {{ name ?? "friend" }}',
        body: '<a href="{{ confirmUrl }}">yes</a>',
        from: `hi@${DOMAIN}`,
        type: 'TRANSACTIONAL',
      });
    expect(template.status).toBe(201);
    const templateId = template.body.id ?? template.body.data?.id;
    expect(
      (
        await h.http
          .patch('/settings')
          .set(key)
          .send({ doubleOptIn: { enabled: true, from: `hi@${DOMAIN}`, templateId, expiryHours: 1 } })
      ).status,
    ).toBe(200);
    const created = await h.http
      .post('/contacts')
      .set(key)
      .send({ email: uniqueEmail('tpl'), data: { name: 'Ada' } });
    const mail = await confirmationOf(created.body.id);
    expect(mail.rendered_subject).toBe('Confirm, Ada');
    const confirmUrl = confirmUrlFor(h.config, fx.projectId, created.body.id);
    expect(mail.rendered_body).toContain(confirmUrl);

    await h.deps
      .knex('contact_confirmations')
      .where({ contact_id: created.body.id })
      .update({ expires_at: h.deps.knex.raw("now() - interval '1 minute'") });
    expect((await contactOf(fx, created.body.id)).pending).toBe(false);
    expect((await h.http.post(pathOf(confirmUrl)).type('form').send('')).status).toBe(410);
    expect((await contactOf(fx, created.body.id)).subscribed).toBe(false);
    const pruned = await maintenanceActivities(h.deps as any).pruneExpired();
    expect(pruned.confirmations).toBeGreaterThanOrEqual(1);
    expect(await h.deps.knex('contact_confirmations').where({ contact_id: created.body.id }).first()).toBeUndefined();
  });
});
