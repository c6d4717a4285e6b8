import crypto from 'node:crypto';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { startSesSink, SesSink } from '../helpers/sesSink';
import { startSnsSigner, selfSigned, SnsEnvelope, SnsSigner } from '../helpers/snsSigner';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';

/**
 * EMAIL_TRANSPORT=ses: the real SESv2 client against a local SendEmail sink, and POST /webhooks/ses
 * fed SNS messages signed like AWS signs them, with the certificate served over https on loopback.
 */

let h: Harness;
let p: ProjectFixture;
let sink: SesSink;
let sns: SnsSigner;

const DOMAIN = 'mail.example.com';
const CONFIGURATION_SET = 'svc-events';
/** Allowed, but nothing listens there: the certificate cannot be fetched. */
const DEAD_HOST = '127.0.0.1:1';

/** SES for sending, SNS (topic, certificate hosts and CA) for its notifications: what POST /webhooks/ses needs to listen. */
const sesEnv = (): Record<string, string> => ({
  EMAIL_TRANSPORT: 'ses',
  SES_REGION: 'eu-west-1',
  SES_ENDPOINT: sink.url,
  SES_ACCESS_KEY_ID: 'AKIDTESTKEY',
  SES_SECRET_ACCESS_KEY: 'test-secret',
  SES_CONFIGURATION_SET: CONFIGURATION_SET,
  SNS_CERT_HOSTS: `${sns.host},${DEAD_HOST}`,
  SNS_CERT_CA: sns.ca,
  SNS_TOPIC_ARNS: sns.topicArn,
});

beforeAll(async () => {
  sink = await startSesSink();
  sns = await startSnsSigner();
  h = await startHarness({ worker: true, env: sesEnv() });
  p = await createProjectFixture(h);
  await verifiedDomain(h, p.projectId, DOMAIN);
});
afterAll(async () => {
  await h?.stop();
  await sink?.stop();
  await sns?.stop();
});

const emailRow = (id: string) => h.deps.knex('emails').where({ id }).first();
const contactEvents = (contactId: string, name: string) => h.deps.knex('events').where({ contact_id: contactId, name });
const campaign = async (id: string) => (await h.http.get(`/campaigns/${id}`).set(bearer(p.secretKey))).body;
const subscribed = async (contactId: string) => (await h.deps.knex('contacts').where({ id: contactId }).first()).subscribed;

/** As SNS posts: JSON in a text/plain body. */
const post = (m: SnsEnvelope | string, type = 'text/plain; charset=UTF-8') =>
  h.http
    .post('/webhooks/ses')
    .set('Content-Type', type)
    .set('x-amz-sns-message-type', typeof m === 'string' ? 'Notification' : (m.Type ?? ''))
    .send(typeof m === 'string' ? m : JSON.stringify(m));

async function sendOne(to: string, extra: Record<string, unknown> = {}) {
  const res = await h.http
    .post('/v1/send')
    .set(bearer(p.secretKey))
    .send({ to, from: `hello@${DOMAIN}`, subject: 'S', body: '<p>B</p>', ...extra });
  expect(res.status).toBe(200);
  const emailId: string = res.body.data.emails[0].email;
  return eventually(async () => {
    const row = await emailRow(emailId);
    return row && ['SENT', 'FAILED'].includes(row.status) ? row : null;
  });
}

interface Sent {
  campaignId: string;
  recipients: Array<{ email: string; emailId: string; contactId: string; messageId: string }>;
}

async function sentCampaign(n: number): Promise<Sent> {
  const emails = Array.from({ length: n }, () => uniqueEmail('ses'));
  for (const email of emails) await h.http.post('/contacts').set(bearer(p.secretKey)).send({ email });
  const seg = await h.http
    .post('/segments')
    .set(bearer(p.secretKey))
    .send({ name: `ses-${crypto.randomBytes(3).toString('hex')}`, type: 'STATIC' });
  await h.http.post(`/segments/${seg.body.id}/members`).set(bearer(p.secretKey)).send({ emails });
  const created = await h.http
    .post('/campaigns')
    .set(bearer(p.secretKey))
    // Tracked first-party, SES's opens and clicks would be ignored (docs/tracking.md): these tests are about SES's.
    .send({
      name: 'ses',
      subject: 'Hello {{ email }}',
      body: '<p>Hi {{ email }}</p>',
      from: `news@${DOMAIN}`,
      fromName: 'News Desk',
      audienceType: 'SEGMENT',
      segmentId: seg.body.id,
      tracking: { opens: false, clicks: false },
    });
  const campaignId = created.body.data.id;
  await h.http.post(`/campaigns/${campaignId}/send`).set(bearer(p.secretKey)).send({});
  await eventually(async () => (await h.deps.knex('campaigns').where({ id: campaignId }).first()).status === 'SENT');
  const rows = await h.deps.knex('emails').where({ campaign_id: campaignId });
  return {
    campaignId,
    recipients: emails.map((email) => {
      const row = rows.find((r: any) => r.to_email === email)!;
      return { email, emailId: row.id, contactId: row.contact_id, messageId: row.provider_message_id };
    }),
  };
}

/** An SES event-publishing notification (configuration set → SNS), with the tags SES echoes back. */
function sesEvent(eventType: string, r: Sent['recipients'][number], detail: Record<string, unknown> = {}, tags = true) {
  const now = new Date().toISOString();
  const mail = {
    timestamp: now,
    source: `news@${DOMAIN}`,
    messageId: r.messageId,
    destination: [r.email],
    ...(tags ? { tags: { 'ses:configuration-set': [CONFIGURATION_SET], email_id: [r.emailId], project_id: [p.projectId] } } : {}),
  };
  const key = eventType.charAt(0).toLowerCase() + eventType.slice(1);
  return { eventType, mail, [key]: { timestamp: now, ...detail } };
}

const permanentBounce = (r: Sent['recipients'][number]) =>
  sesEvent('Bounce', r, {
    bounceType: 'Permanent',
    bounceSubType: 'General',
    bouncedRecipients: [{ emailAddress: r.email, action: 'failed', status: '5.1.1', diagnosticCode: 'smtp; 550 5.1.1 user unknown' }],
  });

describe('SES transport', () => {
  it('sends a transactional email through SendEmail with its subject, body, headers, attachments and tags, and stores the SES message id', async () => {
    const to = uniqueEmail('tx');
    const content = Buffer.from('hello attachment').toString('base64');
    const row = await sendOne(to, {
      from: { name: 'Zoë Sender', email: `hello@${DOMAIN}` },
      subject: 'Your receipt',
      body: '<p>Thanks</p>',
      reply: 'replies@example.org',
      headers: { 'X-Order': '42' },
      attachments: [{ filename: 'r.txt', content, contentType: 'text/plain' }],
    });
    expect(row.status).toBe('SENT');
    const msg = sink.messages.find((m) => m.to.includes(to))!;
    expect(msg).toBeDefined();
    expect(msg.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDTESTKEY\/\d{8}\/eu-west-1\/ses\/aws4_request/);
    expect(msg.subject).toBe('Your receipt');
    expect(msg.html).toBe('<p>Thanks</p>');
    expect(msg.headers).toEqual({ 'X-Order': '42' });
    // A non-ASCII display name goes as an RFC 2047 encoded word.
    expect(msg.from).toBe(`=?UTF-8?Q?Zo=C3=AB_Sender?= <hello@${DOMAIN}>`);
    expect(msg.replyTo).toEqual(['replies@example.org']);
    expect(msg.attachments).toEqual([{ filename: 'r.txt', contentType: 'text/plain', content: Buffer.from('hello attachment') }]);
    expect(msg.tags).toEqual({ email_id: row.id, project_id: p.projectId });
    expect(msg.configurationSet).toBe(CONFIGURATION_SET);
    expect(row.provider_message_id).toBe(msg.messageId);
  });

  it("hands each campaign recipient to SES exactly once, in groups, each with its own message id and the campaign's tags", async () => {
    sink.clear();
    // More than one group of 50.
    const { campaignId, recipients } = await sentCampaign(55);
    expect(await campaign(campaignId)).toMatchObject({ status: 'SENT', sentCount: 55 });
    expect(sink.messages).toHaveLength(55);
    for (const r of recipients) {
      const got = sink.messages.filter((m) => m.to.includes(r.email));
      expect(got).toHaveLength(1);
      expect(got[0].subject).toBe(`Hello ${r.email}`);
      expect(got[0].html).toBe(`<p>Hi ${r.email}</p>`);
      expect(got[0].from).toBe(`"News Desk" <news@${DOMAIN}>`);
      expect(got[0].headers['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
      expect(got[0].tags).toEqual({ email_id: r.emailId, project_id: p.projectId, campaign_id: campaignId });
      expect(r.messageId).toBe(got[0].messageId);
    }
  });

  it('fails an email SES refuses, and retries one SES throttles until it is sent once', async () => {
    sink.failNext(1, 400, 'MessageRejected');
    const refused = await sendOne(uniqueEmail('rej'));
    expect(refused.status).toBe('FAILED');
    expect(refused.error).toMatch(/SES answered 400 MessageRejected/);

    sink.failNext(1, 429, 'TooManyRequestsException');
    const to = uniqueEmail('thr');
    const sent = await sendOne(to);
    expect(sent.status).toBe('SENT');
    expect(sink.messages.filter((m) => m.to.includes(to))).toHaveLength(1);
  });

  it('never offers a message twice when the answer to SendEmail is lost (no SDK retries)', async () => {
    sink.loseAnswers(1);
    const to = uniqueEmail('lost');
    const row = await sendOne(to);
    expect(row.status).toBe('FAILED');
    expect(row.error).toMatch(/outcome unknown/);
    expect(sink.messages.filter((m) => m.to.includes(to))).toHaveLength(1);
  });
});

describe('POST /webhooks/ses', () => {
  it('applies a signed bounce and complaint once each, however often SNS delivers them, and unsubscribes the contacts', async () => {
    const {
      campaignId,
      recipients: [bounced, complained, soft],
    } = await sentCampaign(3);
    const bounce = sns.notification(permanentBounce(bounced));
    const complaint = sns.notification(
      sesEvent('Complaint', complained, { complainedRecipients: [{ emailAddress: complained.email }], complaintFeedbackType: 'abuse' }),
    );
    const transient = sns.notification(
      sesEvent('Bounce', soft, {
        bounceType: 'Transient',
        bounceSubType: 'MailboxFull',
        bouncedRecipients: [{ emailAddress: soft.email, diagnosticCode: 'smtp; 452 mailbox full' }],
      }),
    );
    for (const m of [bounce, complaint, transient]) {
      const res = await post(m);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ received: 1, applied: 1, duplicates: 0, unmatched: 0, ignored: 0 });
    }
    // SNS redelivers with the same MessageId.
    for (const m of [bounce, complaint]) expect((await post(m)).body.data).toMatchObject({ applied: 0, duplicates: 1 });

    expect(await campaign(campaignId)).toMatchObject({ bouncedCount: 2 });
    expect((await h.http.get(`/campaigns/${campaignId}/stats`).set(bearer(p.secretKey))).body).toMatchObject({ bounced: 2, complained: 1 });
    expect((await emailRow(bounced.emailId)).status).toBe('BOUNCED');
    expect((await emailRow(complained.emailId)).status).toBe('COMPLAINED');
    expect(await subscribed(bounced.contactId)).toBe(false);
    expect(await subscribed(complained.contactId)).toBe(false);
    // A transient bounce is counted but leaves the address subscribed.
    expect(await subscribed(soft.contactId)).toBe(true);
    const events = await contactEvents(bounced.contactId, 'email.bounced');
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({ emailId: bounced.emailId, campaignId, provider: 'ses', reason: 'smtp; 550 5.1.1 user unknown' });
    expect(await contactEvents(complained.contactId, 'email.complained')).toHaveLength(1);
    const [unsub] = await contactEvents(complained.contactId, 'contact.unsubscribed');
    expect(unsub.data).toEqual({ source: 'complaint' });
  });

  it('maps delivery, open, click, send and delivery delays onto the same statuses, counters and events', async () => {
    const {
      campaignId,
      recipients: [a, b],
    } = await sentCampaign(2);
    const results = [];
    for (const m of [
      sesEvent('Send', a),
      sesEvent('Delivery', a, { recipients: [a.email], smtpResponse: '250 ok' }),
      sesEvent('DeliveryDelay', b, { delayType: 'MailboxFull', delayedRecipients: [{ emailAddress: b.email }] }),
      sesEvent('Open', a, { userAgent: 'x', ipAddress: '192.0.2.1' }),
      sesEvent('Click', a, { link: 'https://example.org/offer', ipAddress: '192.0.2.1' }),
    ]) {
      results.push((await post(sns.notification(m))).body.data);
    }
    expect(results.map((r) => (r.applied ? 'applied' : r.ignored ? 'ignored' : 'other'))).toEqual(['applied', 'applied', 'ignored', 'applied', 'applied']);
    expect(await campaign(campaignId)).toMatchObject({ deliveredCount: 1, openedCount: 1, clickedCount: 1 });
    expect((await emailRow(a.emailId)).status).toBe('CLICKED');
    expect((await emailRow(b.emailId)).status).toBe('SENT');
    const [click] = await contactEvents(a.contactId, 'email.clicked');
    expect(click.data).toMatchObject({ url: 'https://example.org/offer', provider: 'ses' });
  });

  it('finds the email of an identity notification (no tags) by its SES message id and address, and ignores what it cannot place', async () => {
    const to = uniqueEmail('idn');
    const row = await sendOne(to);
    const r = { email: to, emailId: row.id, contactId: row.contact_id, messageId: row.provider_message_id };
    const { eventType: _, ...identity } = { ...sesEvent('Delivery', r, { recipients: [to.toUpperCase()] }, false), notificationType: 'Delivery' };
    expect((await post(sns.notification(identity))).body.data.applied).toBe(1);
    expect((await emailRow(row.id)).status).toBe('DELIVERED');

    const stranger = { ...r, messageId: 'not-ours', emailId: crypto.randomUUID() };
    const res = await post(sns.notification(sesEvent('Delivery', stranger, {}, false)));
    expect(res.body.data).toMatchObject({ applied: 0, unmatched: 1 });
    // The SNS console's test message: signed, but not an SES notification.
    expect((await post(sns.notification('hello from the console', { subject: 'test' }))).body.data).toMatchObject({ received: 1, ignored: 1 });
  });

  it('accepts SignatureVersion 1 and application/json bodies, and fetches a signing certificate once', async () => {
    const before = sns.certFetches();
    const {
      recipients: [a],
    } = await sentCampaign(1);
    expect((await post(sns.notification(sesEvent('Delivery', a), { version: '1' }), 'application/json')).body.data.applied).toBe(1);
    expect((await post(sns.notification(sesEvent('Open', a), { subject: 'Amazon SES Email Event Notification' }))).body.data.applied).toBe(1);
    // Every message of this file names the same certificate URL: fetched by the first, never again.
    expect(before).toBeLessThanOrEqual(1);
    expect(sns.certFetches()).toBe(1);
  });

  describe('refuses', () => {
    let r: Sent['recipients'][number];
    beforeAll(async () => {
      r = (await sentCampaign(1)).recipients[0];
    });
    afterEach(async () => {
      // Whatever was refused changed nothing.
      const row = await emailRow(r.emailId);
      expect(row.status).toBe('SENT');
      expect(await subscribed(r.contactId)).toBe(true);
    });

    it('a message whose signed fields were changed', async () => {
      const m = sns.notification(permanentBounce(r));
      const res = await post({ ...m, Timestamp: new Date(Date.now() + 1000).toISOString() });
      expect(res.status).toBe(401);
      expect(res.body.error).toMatchObject({ code: 'UNAUTHORIZED', message: 'invalid SNS message signature' });
      const swapped = await post({ ...m, Message: JSON.stringify(sesEvent('Complaint', r, { complainedRecipients: [{ emailAddress: r.email }] })) });
      expect(swapped.status).toBe(401);
      expect((await post({ ...m, Signature: 'bm90IGEgc2lnbmF0dXJl' })).status).toBe(401);
    });

    it('a message signed by another key than the certificate at its URL', async () => {
      const res = await post(sns.notification(permanentBounce(r), { key: selfSigned('impostor').key }));
      expect(res.status).toBe(401);
    });

    it('a certificate URL on a host that is not allowed, or not https, without fetching it', async () => {
      const fetches = sns.certFetches();
      for (const certUrl of [
        'https://127.0.0.2:1/SimpleNotificationService-test.pem',
        `http://${sns.host}/SimpleNotificationService-test.pem`,
        `https://localhost:${sns.host.split(':')[1]}/x.pem`,
      ]) {
        const res = await post(sns.notification(permanentBounce(r), { certUrl }));
        expect(res.status).toBe(401);
        expect(res.body.error.message).toMatch(/not on an allowed host/);
      }
      expect(sns.certFetches()).toBe(fetches);
    });

    it('a correctly signed message from a topic not in SNS_TOPIC_ARNS', async () => {
      const m = sns.notification(permanentBounce(r), { topicArn: 'arn:aws:sns:us-east-1:210987654321:someone-else' });
      const res = await post(m);
      expect(res.status).toBe(401);
      expect(res.body.error.message).toMatch(/SNS_TOPIC_ARNS/);
    });

    it('a signed notification from our topic naming one of our emails (by its tags) with another SES message id', async () => {
      // Email ids travel in headers; the SES message id SendEmail gave us for the email is what binds a notification to it.
      const forged = permanentBounce({ ...r, messageId: `${r.messageId}-other` });
      const res = await post(sns.notification(forged));
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ received: 1, applied: 0, duplicates: 0, unmatched: 1, ignored: 0 });
      const noId = permanentBounce(r);
      delete (noId.mail as Record<string, unknown>).messageId;
      expect((await post(sns.notification(noId))).body.data).toMatchObject({ applied: 0 });
    });

    it.each([
      ['EMAIL_TRANSPORT=ses without SNS_TOPIC_ARNS', { EMAIL_TRANSPORT: 'ses', SNS_TOPIC_ARNS: '' }],
      ['SNS_TOPIC_ARNS with another transport', { EMAIL_TRANSPORT: 'log' }],
    ])('with 404, even a correctly signed notification, when the endpoint is off: %s', async (_name, env) => {
      const off = await startHarness({ env: { ...sesEnv(), ...env } });
      try {
        const res = await off.http
          .post('/webhooks/ses')
          .set('Content-Type', 'text/plain')
          .send(JSON.stringify(sns.notification(permanentBounce(r))));
        expect(res.status).toBe(404);
        expect(res.body.error).toMatchObject({ code: 'NOT_FOUND', message: expect.stringMatching(/EMAIL_TRANSPORT=ses and SNS_TOPIC_ARNS/) });
      } finally {
        await off.stop();
      }
    });

    it('an unknown signature version and a replayed old message', async () => {
      expect((await post({ ...sns.notification(permanentBounce(r)), SignatureVersion: '3' })).status).toBe(401);
      const old = await post(sns.notification(permanentBounce(r), { timestamp: new Date(Date.now() - 4 * 24 * 3600_000).toISOString() }));
      expect(old.status).toBe(401);
      expect(old.body.error.message).toMatch(/too old/);
    });

    it('with 503 when the certificate cannot be fetched, so SNS retries', async () => {
      const res = await post(sns.notification(permanentBounce(r), { certUrl: `https://${DEAD_HOST}/SimpleNotificationService-test.pem` }));
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
    });

    it('bodies that are not SNS messages', async () => {
      expect((await post('{not json')).status).toBe(400);
      const notSns = await post(JSON.stringify({ hello: 'world' }));
      expect(notSns.status).toBe(422);
      expect(notSns.body.error.code).toBe('VALIDATION_ERROR');
      expect((await post({ ...sns.notification(permanentBounce(r)), Type: 'Other' })).status).toBe(422);
    });
  });

  describe('subscriptions', () => {
    it('confirms a signed SubscriptionConfirmation by visiting its SubscribeURL', async () => {
      const m = sns.subscriptionConfirmation({ token: 'tok-1' });
      const res = await post(m);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ type: 'SubscriptionConfirmation', confirmed: true });
      expect(sns.confirmed).toContain('tok-1');
    });

    it('does not visit a SubscribeURL on a host that is not allowed, nor an unsigned one, nor an UnsubscribeConfirmation', async () => {
      const elsewhere = await post(
        sns.subscriptionConfirmation({ token: 'tok-2', subscribeUrl: 'https://127.0.0.2:1/?Action=ConfirmSubscription&Token=tok-2' }),
      );
      expect(elsewhere.status).toBe(401);
      expect(elsewhere.body.error.message).toMatch(/SubscribeURL is not on an allowed host/);
      const forged = { ...sns.subscriptionConfirmation({ token: 'tok-3' }), Token: 'tok-4' };
      expect((await post(forged)).status).toBe(401);
      const unsub = await post(sns.subscriptionConfirmation({ token: 'tok-5', type: 'UnsubscribeConfirmation' }));
      expect(unsub.body.data).toEqual({ type: 'UnsubscribeConfirmation', confirmed: false });
      expect(sns.confirmed).not.toEqual(expect.arrayContaining(['tok-2']));
      expect(sns.confirmed.filter((t) => ['tok-2', 'tok-3', 'tok-4', 'tok-5'].includes(t))).toEqual([]);
    });
  });
});
