import crypto from 'node:crypto';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { sendgridEnv, startSendgridSink, SendgridSink } from '../helpers/sendgridSink';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { workflowApi } from '../helpers/workflows';

let h: Harness;
let p: ProjectFixture;
let q: ProjectFixture;
let sink: SendgridSink;

const DOMAIN = 'mail.example.com';
// SendGrid's Event Webhook signs with ECDSA P-256; the harness verifies every post with this key.
const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });

beforeAll(async () => {
  sink = await startSendgridSink();
  h = await startHarness({
    worker: true,
    env: sendgridEnv(sink, publicKey),
  });
  p = await createProjectFixture(h, 'Story');
  q = await createProjectFixture(h, 'Listing');
  await verifiedDomain(h, p.projectId, DOMAIN);
  await verifiedDomain(h, q.projectId, DOMAIN);
});
afterAll(async () => {
  await h?.stop();
  await sink?.stop();
});

const send = (key: string, to: unknown, extra: Record<string, unknown> = {}) =>
  h.http
    .post('/v1/send')
    .set(bearer(key))
    .send({ from: `hello@${DOMAIN}`, to, subject: 'Hi {{ email }}', body: '<p>Hi <a href="https://example.org/x">x</a></p>', ...extra });

const emailRow = (id: string) => h.deps.knex('emails').where({ id }).first();
const untilSent = (id: string) => eventually(async () => ((await emailRow(id))?.status === 'SENT' ? true : null));

/** Sends one email to `to` through the real worker and the sink; its id, contact and SendGrid message id. */
async function sentEmail(fx: ProjectFixture, to = uniqueEmail('story')) {
  const res = await send(fx.secretKey, to);
  expect(res.status).toBe(200);
  const [{ email: emailId, contact }] = res.body.data.emails;
  await untilSent(emailId);
  const r = sink.recipients().find((x) => x.customArgs.email_id === emailId)!;
  return { emailId, contactId: contact.id as string, to, messageId: r.messageId };
}

/** Posts SendGrid events through the signed Event Webhook, one post per event so each is its own moment. */
async function webhook(sent: Awaited<ReturnType<typeof sentEmail>>, fx: ProjectFixture, events: Array<Record<string, unknown>>) {
  for (const extra of events) {
    const body = JSON.stringify([
      {
        email: sent.to,
        timestamp: Math.floor(Date.now() / 1000),
        sg_event_id: crypto.randomBytes(12).toString('base64url'),
        sg_message_id: `${sent.messageId}.filter0001.123.0`,
        email_id: sent.emailId,
        project_id: fx.projectId,
        ...extra,
      },
    ]);
    const ts = String(Math.floor(Date.now() / 1000));
    const res = await h.http
      .post('/webhooks/sendgrid')
      .set('Content-Type', 'application/json')
      .set('X-Twilio-Email-Event-Webhook-Signature', crypto.sign('sha256', Buffer.from(ts + body), privateKey).toString('base64'))
      .set('X-Twilio-Email-Event-Webhook-Timestamp', ts)
      .send(body);
    expect(res.status).toBe(200);
    expect(res.body.data.applied).toBe(1);
  }
}

const getEmail = (key: string, id: string) => h.http.get(`/emails/${id}`).set(bearer(key));
const list = (key: string, query: Record<string, string | number>) => h.http.get('/emails').query(query).set(bearer(key));

describe('GET /emails/:id', () => {
  it("tells one email's story in order: sent, delivered, opened, clicked with the url", async () => {
    const sent = await sentEmail(p);
    await webhook(sent, p, [{ event: 'delivered' }, { event: 'open' }, { event: 'click', url: 'https://example.org/x' }]);
    const res = await getEmail(p.secretKey, sent.emailId);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: sent.emailId,
      to: sent.to,
      contactId: sent.contactId,
      subject: `Hi ${sent.to}`,
      type: 'TRANSACTIONAL',
      status: 'CLICKED',
      templateId: null,
      campaignId: null,
      workflowExecutionId: null,
      createdAt: expect.any(String),
    });
    expect(res.body.events.map((e: any) => e.type)).toEqual(['sent', 'delivered', 'opened', 'clicked']);
    expect(res.body.events[3].data).toMatchObject({ url: 'https://example.org/x', provider: 'sendgrid' });
    const times = res.body.events.map((e: any) => Date.parse(e.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('tells a bounce with its reason, and a provider drop as failed with the error', async () => {
    const bounced = await sentEmail(p);
    await webhook(bounced, p, [{ event: 'bounce', reason: '550 no such user' }]);
    const b = await getEmail(p.secretKey, bounced.emailId);
    expect(b.body.status).toBe('BOUNCED');
    expect(b.body.events.map((e: any) => e.type)).toEqual(['sent', 'bounced']);
    expect(b.body.events[1].data).toMatchObject({ reason: '550 no such user' });

    const dropped = await sentEmail(p);
    await webhook(dropped, p, [{ event: 'dropped', reason: 'Invalid' }]);
    const d = await getEmail(p.secretKey, dropped.emailId);
    expect(d.body.status).toBe('FAILED');
    expect(d.body.events.map((e: any) => e.type)).toEqual(['sent', 'failed']);
    expect(d.body.events[1].data.error).toMatch(/Invalid/);
  });

  it("still tells the story from the row's timestamps once the contact (and its events) is deleted", async () => {
    const sent = await sentEmail(p);
    // The provider's clock says the delivery came before the send (whole seconds, another machine).
    const providerTime = Math.floor(Date.now() / 1000) - 30;
    await webhook(sent, p, [{ event: 'delivered', timestamp: providerTime }]);
    expect((await h.http.delete(`/contacts/${sent.contactId}`).set(bearer(p.secretKey))).status).toBe(204);
    const res = await getEmail(p.secretKey, sent.emailId);
    expect(res.status).toBe(200);
    expect(res.body.contactId).toBeNull();
    expect(res.body.events).toEqual([
      { type: 'sent', at: expect.any(String), data: {} },
      { type: 'delivered', at: new Date(providerTime * 1000).toISOString(), data: {} },
    ]);
    // Told after the send it follows, at the time the provider gave.
    expect(Date.parse(res.body.events[1].at)).toBeLessThan(Date.parse(res.body.events[0].at));
  });

  it('is 404 NOT_FOUND for another project, an unknown id and a malformed id', async () => {
    const sent = await sentEmail(p);
    for (const [key, id] of [
      [q.secretKey, sent.emailId],
      [p.secretKey, crypto.randomUUID()],
      [p.secretKey, 'not-a-uuid'],
    ]) {
      const res = await getEmail(key, id);
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'NOT_FOUND' });
    }
    // The public key cannot read mail.
    expect((await getEmail(p.publicKey, sent.emailId)).status).toBe(401);
  });

  it('names the workflow execution whose SEND_EMAIL step sent it', async () => {
    const api = workflowApi(h, p);
    const event = `story-${crypto.randomBytes(3).toString('hex')}`;
    const wf = await api.build(
      event,
      { send: { type: 'SEND_EMAIL', config: { subject: 'Welcome', body: '<p>w</p>', from: `team@${DOMAIN}`, type: 'TRANSACTIONAL' } } },
      [['trigger', 'send']],
      {
        enabled: true,
      },
    );
    expect((await api.track(uniqueEmail('wf'), event)).status).toBe(200);
    const executionId = (await eventually(async () => (await api.rows(wf.id))[0]))?.id as string;
    const done = await api.until(wf.id, executionId, ['COMPLETED', 'EXITED', 'FAILED']);
    expect(done.status).toBe('COMPLETED');
    const emailId = done.steps.find((s: any) => s.type === 'SEND_EMAIL').output.emailId;
    const res = await getEmail(p.secretKey, emailId);
    expect(res.body).toMatchObject({ workflowExecutionId: executionId, events: [expect.objectContaining({ type: 'sent' })] });
  });
});

describe('GET /emails', () => {
  it('lists newest first, filters by contact and status, and pages with the cursor without duplicates or gaps', async () => {
    const batch = await send(q.secretKey, [uniqueEmail('l1'), uniqueEmail('l2'), uniqueEmail('l3')]);
    expect(batch.status).toBe(200);
    const batchIds: string[] = batch.body.data.emails.map((e: any) => e.email);
    for (const id of batchIds) await untilSent(id);
    const twice = uniqueEmail('twice');
    const first = await sentEmail(q, twice);
    const second = await sentEmail(q, twice);
    await webhook(second, q, [{ event: 'bounce', reason: 'gone' }]);

    const all = await eventually(async () => {
      const ids: string[] = [];
      let cursor: string | undefined;
      for (let i = 0; i < 10; i++) {
        const page = await list(q.secretKey, { limit: 2, ...(cursor ? { cursor } : {}) });
        expect(page.status).toBe(200);
        expect(page.body.data.length).toBeLessThanOrEqual(2);
        for (const e of page.body.data) expect(e.events).toBeUndefined();
        ids.push(...page.body.data.map((e: any) => e.id));
        if (!page.body.hasMore) {
          expect(page.body.cursor).toBeNull();
          return ids;
        }
        cursor = page.body.cursor;
      }
      return null;
    });
    expect(all).toHaveLength(5);
    expect(new Set(all)).toEqual(new Set([...batchIds, first.emailId, second.emailId]));
    // Newest first, as Postgres orders them (microseconds, then id for rows written at one instant).
    const ordered = await h.deps
      .knex('emails')
      .where({ project_id: q.projectId })
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .pluck('id');
    expect(all).toEqual(ordered);
    expect(all.slice(0, 2)).toEqual([second.emailId, first.emailId]);

    const byContact = await list(q.secretKey, { contactId: first.contactId });
    expect(byContact.body.data.map((e: any) => e.id)).toEqual([second.emailId, first.emailId]);
    const bounced = await list(q.secretKey, { status: 'BOUNCED' });
    expect(bounced.body.data.map((e: any) => e.id)).toEqual([second.emailId]);
    const both = await list(q.secretKey, { status: 'SENT', contactId: first.contactId });
    expect(both.body.data.map((e: any) => e.id)).toEqual([first.emailId]);
    // Another project's emails never show.
    const other = await list(p.secretKey, { contactId: first.contactId });
    expect(other.body.data).toEqual([]);
  });

  it.each([
    ['status', 'NOPE'],
    ['limit', '0'],
    ['limit', 'x'],
    ['cursor', 'not-a-cursor'],
    ['contactId', 'nope'],
  ])('answers a bad %s (%s) with 400 BAD_REQUEST', async (name, value) => {
    const res = await list(q.secretKey, { [name]: value });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BAD_REQUEST');
  });
});
