import crypto from 'node:crypto';
import { upsertContact } from '../../db/contactWriters';
import { insertEmail } from '../../db/emails';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { startSendgridSink, SendgridSink } from '../helpers/sendgridSink';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { deterministicUuid } from '../../lib/ids';
import { providerEventActivities } from '../../activities/providerEvents';

let h: Harness;
let p: ProjectFixture;
let sink: SendgridSink;

const DOMAIN = 'mail.example.com';
const KEY_ENV = 'SENDGRID_WEBHOOK_PUBLIC_KEY';
const NO_TRACKING = { opens: false, clicks: false };

beforeAll(async () => {
  sink = await startSendgridSink();
  h = await startHarness({ worker: true, env: { EMAIL_TRANSPORT: 'sendgrid', SENDGRID_API_KEY: 'SG.test-key', SENDGRID_API_URL: sink.url } });
  p = await createProjectFixture(h);
  await verifiedDomain(h, p.projectId, DOMAIN);
});
afterAll(async () => {
  await h?.stop();
  await sink?.stop();
});

const post = (events: unknown, headers: Record<string, string> = {}, target: Harness = h) =>
  target.http
    .post('/webhooks/sendgrid')
    .set('Content-Type', 'application/json')
    .set(headers)
    .send(typeof events === 'string' ? events : JSON.stringify(events));

interface Sent {
  campaignId: string;
  recipients: Array<{ email: string; emailId: string; contactId: string; messageId: string }>;
}

/** A MARKETING campaign sent through the sink to `n` fresh subscribed contacts. */
async function sentCampaign(n: number): Promise<Sent> {
  const emails = Array.from({ length: n }, () => uniqueEmail('pe'));
  for (const email of emails) await h.http.post('/contacts').set(bearer(p.secretKey)).send({ email });
  const seg = await h.http
    .post('/segments')
    .set(bearer(p.secretKey))
    .send({ name: `pe-${crypto.randomBytes(3).toString('hex')}`, type: 'STATIC' });
  await h.http.post(`/segments/${seg.body.id}/members`).set(bearer(p.secretKey)).send({ emails });
  const created = await h.http
    .post('/campaigns')
    .set(bearer(p.secretKey))
    // Tracked first-party, its provider opens and clicks would be ignored (docs/tracking.md): these tests are about the provider's.
    .send({
      name: 'events',
      subject: 'Hi',
      body: '<p>Hi {{ email }}</p>',
      from: `news@${DOMAIN}`,
      audienceType: 'SEGMENT',
      segmentId: seg.body.id,
      tracking: NO_TRACKING,
    });
  const campaignId = created.body.data.id;
  await h.http.post(`/campaigns/${campaignId}/send`).set(bearer(p.secretKey)).send({});
  await eventually(async () => (await h.deps.knex('campaigns').where({ id: campaignId }).first()).status === 'SENT');
  const recipients = emails.map((email) => {
    const r = sink.recipients().find((x) => x.email === email)!;
    return { email, emailId: r.customArgs.email_id, contactId: '', messageId: r.messageId };
  });
  for (const r of recipients) r.contactId = (await h.deps.knex('emails').where({ id: r.emailId }).first()).contact_id;
  return { campaignId, recipients };
}

const eventId = () => crypto.randomBytes(12).toString('base64url');
const ev = (r: Sent['recipients'][number], event: string, extra: Record<string, unknown> = {}) => ({
  email: r.email,
  timestamp: Math.floor(Date.now() / 1000),
  event,
  sg_event_id: eventId(),
  sg_message_id: `${r.messageId}.filter0001.123.0`,
  email_id: r.emailId,
  project_id: p.projectId,
  ...extra,
});

const campaign = async (id: string) => (await h.http.get(`/campaigns/${id}`).set(bearer(p.secretKey))).body;
const stats = async (id: string) => (await h.http.get(`/campaigns/${id}/stats`).set(bearer(p.secretKey))).body;
const emailRow = (id: string) => h.deps.knex('emails').where({ id }).first();
const contactEvents = (contactId: string, name: string) => h.deps.knex('events').where({ contact_id: contactId, name });

describe('POST /webhooks/sendgrid', () => {
  it('moves email statuses and campaign counters once per email, however often SendGrid retries an event', async () => {
    const {
      campaignId,
      recipients: [a, b],
    } = await sentCampaign(2);
    const delivered = ev(a, 'delivered');
    const open = ev(a, 'open');
    const res = await post([ev(a, 'processed'), delivered, open, ev(b, 'delivered')]);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ received: 4, applied: 4, duplicates: 0, unmatched: 0, ignored: 0 });
    // SendGrid retries the same events (same sg_event_id), in one post and in another.
    const retry = await post([delivered, open, open]);
    expect(retry.body.data).toMatchObject({ received: 3, applied: 0, duplicates: 3 });
    // A second, distinct open of the same email is an event of its own but not a second opener.
    const clickEvent = ev(a, 'click', { url: 'https://example.org/x' });
    expect((await post([ev(a, 'open'), clickEvent])).body.data.applied).toBe(2);

    expect(await campaign(campaignId)).toMatchObject({ sentCount: 2, deliveredCount: 2, openedCount: 1, clickedCount: 1, bouncedCount: 0 });
    expect(await stats(campaignId)).toMatchObject({ sent: 2, delivered: 2, opened: 1, clicked: 1, openRate: 0.5, clickRate: 0.5 });
    expect((await emailRow(a.emailId)).status).toBe('CLICKED');
    expect((await emailRow(b.emailId)).status).toBe('DELIVERED');
    expect(await contactEvents(a.contactId, 'email.opened')).toHaveLength(2);
    expect(await contactEvents(a.contactId, 'email.delivered')).toHaveLength(1);
    const [click] = await contactEvents(a.contactId, 'email.clicked');
    expect(click.data).toMatchObject({ emailId: a.emailId, campaignId, url: 'https://example.org/x' });
    expect(click.id).toBe(deterministicUuid('provider-event', clickEvent.sg_event_id));
    // Recorded events are handed to routeEvent like any other (it marks them routed).
    await eventually(async () => (await h.deps.knex('events').where({ id: click.id }).first()).routed_at !== null);
  });

  it('forgets event ids once they are too old to be retried', async () => {
    const {
      recipients: [a],
    } = await sentCampaign(1);
    const [old, recent] = [ev(a, 'processed'), ev(a, 'processed')];
    await post([old, recent]);
    await h.deps
      .knex('provider_events')
      .where({ id: old.sg_event_id })
      .update({ received_at: h.deps.knex.raw("now() - interval '8 days'") });
    expect(await providerEventActivities(h.deps).pruneProviderEvents()).toBeGreaterThanOrEqual(1);
    expect(await h.deps.knex('provider_events').where({ id: old.sg_event_id }).first()).toBeUndefined();
    expect(await h.deps.knex('provider_events').where({ id: recent.sg_event_id }).first()).toBeDefined();
  });

  it('never moves an email status backwards when events arrive out of order', async () => {
    const {
      recipients: [a],
    } = await sentCampaign(1);
    await post([ev(a, 'click'), ev(a, 'open'), ev(a, 'delivered')]);
    const row = await emailRow(a.emailId);
    expect(row.status).toBe('CLICKED');
    expect(row.delivered_at).not.toBeNull();
    expect(row.opened_at).not.toBeNull();
  });

  it('unsubscribes the contact on a hard bounce, a spam report and an unsubscribe, and counts each once', async () => {
    const {
      campaignId,
      recipients: [bounced, soft, complained, opted],
    } = await sentCampaign(4);
    const bounce = ev(bounced, 'bounce', { type: 'bounce', reason: '550 5.1.1 no such user' });
    const res = await post([
      bounce,
      bounce,
      ev(soft, 'bounce', { type: 'blocked', reason: 'try later' }),
      ev(complained, 'spamreport'),
      ev(opted, 'unsubscribe'),
    ]);
    expect(res.body.data).toMatchObject({ applied: 4, duplicates: 1 });
    const subscribed = async (id: string) => (await h.deps.knex('contacts').where({ id }).first()).subscribed;
    expect(await subscribed(bounced.contactId)).toBe(false);
    expect(await subscribed(soft.contactId)).toBe(true);
    expect(await subscribed(complained.contactId)).toBe(false);
    expect(await subscribed(opted.contactId)).toBe(false);
    expect((await emailRow(bounced.emailId)).status).toBe('BOUNCED');
    expect((await emailRow(complained.emailId)).status).toBe('COMPLAINED');
    const [b] = await contactEvents(bounced.contactId, 'email.bounced');
    expect(b.data).toMatchObject({ reason: '550 5.1.1 no such user' });
    expect(await contactEvents(complained.contactId, 'email.complained')).toHaveLength(1);
    const [unsub] = await contactEvents(bounced.contactId, 'contact.unsubscribed');
    expect(unsub.data).toEqual({ source: 'bounce' });
    // Opt-outs count as unsubscribed; bounces and complaints have their own counters.
    expect(await stats(campaignId)).toMatchObject({ bounced: 2, complained: 1, unsubscribed: 1, bounceRate: 0.5 });
  });

  it('suspends a project whose bounce rate crosses the threshold as the bounces arrive', async () => {
    const strict = await startHarness({ env: { SECURITY_MIN_SENT: '2' } });
    try {
      const q = await createProjectFixture(strict, 'bouncy');
      const { contact } = await upsertContact(h.deps.knex, { projectId: q.projectId, email: uniqueEmail('bq'), defaultSubscribed: true });
      const ids = [crypto.randomUUID(), crypto.randomUUID()];
      for (const id of ids) {
        await insertEmail(h.deps.knex, {
          id,
          projectId: q.projectId,
          contactId: contact.id,
          type: 'TRANSACTIONAL',
          to: { email: contact.email },
          from: { email: `a@${DOMAIN}` },
          subject: 's',
          body: 'b',
          variables: {},
        });
      }
      await h.deps.knex('emails').whereIn('id', ids).update({ status: 'SENT', provider_message_id: 'm' });
      const bounce = {
        email: contact.email,
        timestamp: Math.floor(Date.now() / 1000),
        event: 'bounce',
        type: 'bounce',
        sg_event_id: eventId(),
        sg_message_id: 'm.filter',
        email_id: ids[0],
      };
      expect((await post([bounce], {}, strict)).status).toBe(200);
      // 1 of 2 bounced (50% > 5%): the project is disabled and its keys get 403.
      expect((await strict.deps.knex('projects').where({ id: q.projectId }).first()).disabled).toBe(true);
      expect((await strict.http.get('/contacts').set(bearer(q.secretKey))).status).toBe(403);
    } finally {
      await strict.stop();
    }
  });

  it('finds a transactional email by the message id prefix and address when no email_id is given', async () => {
    const to = uniqueEmail('tx');
    const sent = await h.http
      .post('/v1/send')
      .set(bearer(p.secretKey))
      .send({ to, from: `hi@${DOMAIN}`, subject: 'S', body: '<p>B</p>' });
    const emailId = sent.body.data.emails[0].email;
    const row = await eventually(async () => ((await emailRow(emailId))?.status === 'SENT' ? emailRow(emailId) : null));
    const res = await post([
      { email: to.toUpperCase(), event: 'delivered', sg_event_id: eventId(), sg_message_id: `${row.provider_message_id}.filter0002.1.0`, timestamp: 1 },
    ]);
    expect(res.body.data.applied).toBe(1);
    expect((await emailRow(emailId)).status).toBe('DELIVERED');
    const dropped = await post([{ email: to, event: 'dropped', reason: 'Bounced Address', sg_event_id: eventId(), email_id: emailId }]);
    expect(dropped.body.data.applied).toBe(1);
    expect((await emailRow(emailId)).status).toBe('DELIVERED');
  });

  it('ignores events it cannot place or does not know, and events naming another project', async () => {
    const {
      recipients: [a],
    } = await sentCampaign(1);
    const res = await post([
      { event: 'delivered', sg_event_id: eventId(), email_id: crypto.randomUUID() },
      { event: 'delivered', sg_event_id: eventId(), email: 'x@example.org', sg_message_id: 'nope.filter' },
      { ...ev(a, 'delivered'), project_id: crypto.randomUUID() },
      ev(a, 'deferred'),
      { event: 42 },
      {},
    ]);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ received: 6, applied: 0, unmatched: 3, ignored: 3 });
    expect((await emailRow(a.emailId)).status).toBe('SENT');
  });

  it.each([
    ['a body that is not JSON', 400, '[{', 'application/json'],
    ['a JSON object instead of an array', 422, '{"event":"open"}', 'application/json'],
    ['an array of non-objects', 422, '[1, 2]', 'application/json'],
    ['a form body', 415, 'event=open', 'application/x-www-form-urlencoded'],
  ])('answers %s with %s', async (_name, status, body, type) => {
    const res = await h.http.post('/webhooks/sendgrid').set('Content-Type', type).send(body);
    expect(res.status).toBe(status);
  });

  describe('signature', () => {
    const { publicKey, privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const publicBase64 = publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    const sign = (timestamp: string, body: string) => crypto.sign('sha256', Buffer.from(timestamp + body), privateKey).toString('base64');
    const headers = (signature: string, timestamp: string) => ({
      'X-Twilio-Email-Event-Webhook-Signature': signature,
      'X-Twilio-Email-Event-Webhook-Timestamp': timestamp,
    });

    it('accepts a correctly signed post and refuses unsigned, tampered or wrongly signed ones when a key is configured', async () => {
      const {
        recipients: [a],
      } = await sentCampaign(1);
      const der = await startHarness({ env: { [KEY_ENV]: publicBase64 } });
      const pem = await startHarness({ env: { [KEY_ENV]: publicKey.export({ format: 'pem', type: 'spki' }).toString() } });
      try {
        // Bytes exactly as sent, spacing included: the signature covers them, not a re-serialisation.
        const body = `[ ${JSON.stringify(ev(a, 'delivered'))} ]`;
        const ts = String(Math.floor(Date.now() / 1000));
        const good = await post(body, headers(sign(ts, body), ts), der);
        expect(good.status).toBe(200);
        expect(good.body.data.applied).toBe(1);

        const other = `[${JSON.stringify(ev(a, 'open'))}]`;
        const unsigned = await post(other, {}, der);
        expect(unsigned.status).toBe(401);
        expect(unsigned.body.error.message).toMatch(/Missing/);
        const tampered = await post(other.replace('open', 'click'), headers(sign(ts, other), ts), der);
        expect(tampered.status).toBe(401);
        expect((await post(other, headers(sign(String(Number(ts) + 1), other), ts), der)).status).toBe(401);
        const stranger = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
        const forged = crypto.sign('sha256', Buffer.from(ts + other), stranger).toString('base64');
        expect((await post(other, headers(forged, ts), der)).status).toBe(401);
        expect((await post(other, headers('not base64 at all', ts), der)).status).toBe(401);
        expect((await emailRow(a.emailId)).status).toBe('DELIVERED');

        // A PEM key works too.
        expect((await post(other, headers(sign(ts, other), ts), pem)).status).toBe(200);
        expect((await emailRow(a.emailId)).status).toBe('OPENED');
      } finally {
        await der.stop();
        await pem.stop();
      }
    });

    it('refuses a correctly signed post whose signature timestamp is more than 10 minutes from now (a replay)', async () => {
      const {
        recipients: [a],
      } = await sentCampaign(1);
      const signed = await startHarness({ env: { [KEY_ENV]: publicBase64 } });
      try {
        const body = JSON.stringify([ev(a, 'delivered')]);
        const at = (minutesAgo: number) => String(Math.floor(Date.now() / 1000 - minutesAgo * 60));
        for (const ts of [at(11), at(-11), at(24 * 60)]) {
          const res = await post(body, headers(sign(ts, body), ts), signed);
          expect(res.status).toBe(401);
          expect(res.body.error).toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringMatching(/more than 10 minutes from now/) });
        }
        expect((await emailRow(a.emailId)).status).toBe('SENT');
        // Within the window (clock skew, a slow hop) the same events are taken.
        const recent = at(4);
        const res = await post(body, headers(sign(recent, body), recent), signed);
        expect(res.status).toBe(200);
        expect(res.body.data.applied).toBe(1);
        expect((await emailRow(a.emailId)).status).toBe('DELIVERED');
      } finally {
        await signed.stop();
      }
    });

    it('accepts unsigned posts in development but refuses them in production when no key is configured', async () => {
      expect((await post([])).status).toBe(200);
      const prod = await startHarness({ env: { NODE_ENV: 'production' } });
      const signedProd = await startHarness({ env: { NODE_ENV: 'production', [KEY_ENV]: publicBase64 } });
      try {
        const res = await post([], {}, prod);
        expect(res.status).toBe(401);
        expect(res.body.error.message).toMatch(KEY_ENV);
        const ts = String(Math.floor(Date.now() / 1000));
        expect((await post('[]', headers(sign(ts, '[]'), ts), signedProd)).status).toBe(200);
      } finally {
        await prod.stop();
        await signedProd.stop();
      }
    });
  });
});
