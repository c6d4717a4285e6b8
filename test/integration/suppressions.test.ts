import crypto from 'node:crypto';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { sendgridEnv, startSendgridSink, SendgridSink } from '../helpers/sendgridSink';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { workflowApi } from '../helpers/workflows';

/**
 * The per-project suppression list (docs/api.md "Suppressions"): its routes, provider events that
 * add to it, and the check at every hand-over (/v1/send batches, campaigns, single deliveries of
 * workflow SEND_EMAIL steps and campaign test sends), against the real worker and a SendGrid sink.
 */

let h: Harness;
let p: ProjectFixture;
let sink: SendgridSink;

const DOMAIN = 'supp.example.com';
const FROM = `team@${DOMAIN}`;
const { publicKey, privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });

beforeAll(async () => {
  sink = await startSendgridSink();
  h = await startHarness({
    worker: true,
    env: sendgridEnv(sink, publicKey),
  });
  p = await createProjectFixture(h);
  await verifiedDomain(h, p.projectId, DOMAIN);
});
afterAll(async () => {
  await h?.stop();
  await sink?.stop();
});

const key = (fx: ProjectFixture = p) => bearer(fx.secretKey);
const suppress = (emails: string[], extra: Record<string, unknown> = {}, fx: ProjectFixture = p) =>
  h.http
    .post('/suppressions')
    .set(key(fx))
    .send({ emails, ...extra });
const list = (query = '', fx: ProjectFixture = p) => h.http.get(`/suppressions${query}`).set(key(fx));
const received = (email: string) => sink.recipients().filter((r) => r.email === email);
const emailRow = (id: string) => h.deps.knex('emails').where({ id }).first();
const settled = (id: string) =>
  eventually(async () => {
    const row = await emailRow(id);
    return row && !['QUEUED', 'SENDING'].includes(row.status) ? row : null;
  });
const suppressedEvents = (emailId: string) => h.deps.knex('events').where({ name: 'email.suppressed' }).whereRaw(`data->>'emailId' = ?`, [emailId]);

/** A signed SendGrid Event Webhook post. */
function postSigned(events: unknown[]) {
  const body = JSON.stringify(events);
  const ts = String(Math.floor(Date.now() / 1000));
  const signature = crypto.sign('sha256', Buffer.from(ts + body), privateKey).toString('base64');
  return h.http
    .post('/webhooks/sendgrid')
    .set('Content-Type', 'application/json')
    .set('X-Twilio-Email-Event-Webhook-Signature', signature)
    .set('X-Twilio-Email-Event-Webhook-Timestamp', ts)
    .send(body);
}

describe('suppression routes', () => {
  it('adds (lowercased, 201 then 200 with added/existing), lists with search, reason and cursor, and deletes (204, then 404)', async () => {
    const tag = crypto.randomBytes(4).toString('hex');
    const addrs = Array.from({ length: 5 }, (_, i) => `r${i}-${tag}@Example.org`);
    const first = await suppress(addrs.slice(0, 3));
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ added: addrs.slice(0, 3).map((a) => a.toLowerCase()), existing: [] });
    const again = await suppress(addrs.slice(0, 3).map((a) => a.toUpperCase()));
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ added: [], existing: addrs.slice(0, 3).map((a) => a.toLowerCase()) });
    const later = new Date(Date.now() + 86_400_000).toISOString();
    const mixed = await suppress(addrs.slice(2), { expiresAt: later });
    expect(mixed.status).toBe(201);
    expect(mixed.body).toEqual({ added: addrs.slice(3).map((a) => a.toLowerCase()), existing: [addrs[2].toLowerCase()] });

    const found = await list(`?search=${tag.toUpperCase()}`);
    expect(found.status).toBe(200);
    expect(found.body.data.map((s: any) => s.email)).toEqual(addrs.map((a) => a.toLowerCase()));
    expect(found.body.data[0]).toEqual({ email: addrs[0].toLowerCase(), reason: 'MANUAL', emailId: null, createdAt: expect.any(String), expiresAt: null });
    expect(found.body.data[4].expiresAt).toBe(later);

    // Two pages of two, then the last one.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await list(`?search=${tag}&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((s: any) => s.email));
      cursor = page.body.cursor;
      expect(page.body.hasMore).toBe(cursor !== null);
    } while (cursor);
    expect(seen).toEqual(addrs.map((a) => a.toLowerCase()));
    expect((await list('?cursor=forged')).status).toBe(400);

    expect((await list(`?search=${tag}&reason=HARD_BOUNCE`)).body.data).toEqual([]);
    expect((await list(`?search=${tag}&reason=MANUAL`)).body.data).toHaveLength(5);

    expect((await h.http.delete(`/suppressions/${encodeURIComponent(addrs[1].toUpperCase())}`).set(key())).status).toBe(204);
    expect((await h.http.delete(`/suppressions/${encodeURIComponent(addrs[1])}`).set(key())).status).toBe(404);
    expect((await list(`?search=${tag}`)).body.data).toHaveLength(4);
  });

  it('refuses more than 1,000 addresses, none, a bad address or a past expiry with 422', async () => {
    const many = Array.from({ length: 1001 }, (_, i) => `m${i}@example.org`);
    const over = await suppress(many);
    expect(over.status).toBe(422);
    expect(over.body.error.code).toBe('VALIDATION_ERROR');
    expect((await suppress([])).status).toBe(422);
    expect((await suppress(['not-an-address'])).status).toBe(422);
    expect((await suppress([uniqueEmail()], { expiresAt: '2020-01-01T00:00:00Z' })).status).toBe(422);
    expect((await suppress([uniqueEmail()], { reason: 'HARD_BOUNCE' })).status).toBe(422);
    expect((await list(`?search=m1000@`)).body.data).toEqual([]);
  });

  it("is per project: another project's key neither sees nor deletes the entries", async () => {
    const other = await createProjectFixture(h, 'other');
    const addr = uniqueEmail('mine');
    expect((await suppress([addr])).status).toBe(201);
    expect((await list(`?search=${addr}`, other)).body.data).toEqual([]);
    expect((await h.http.delete(`/suppressions/${addr}`).set(key(other))).status).toBe(404);
    expect((await list(`?search=${addr}`)).body.data).toHaveLength(1);
    // The other project may suppress the same address on its own.
    expect((await suppress([addr], {}, other)).status).toBe(201);
  });

  it('needs the secret key', async () => {
    expect((await h.http.get('/suppressions').set(bearer(p.publicKey))).status).toBe(401);
    expect((await h.http.get('/suppressions')).status).toBe(401);
  });
});

describe('provider events', () => {
  it('a signed hard bounce and a spam report add the address with the email id; a soft bounce does not', async () => {
    const [hard, soft, spam] = [uniqueEmail('hard'), uniqueEmail('soft'), uniqueEmail('spam')];
    const res = await h.http
      .post('/v1/send')
      .set(key())
      .send({ from: FROM, subject: 'Hi', body: '<p>Hi</p>', to: [hard, soft, spam] });
    expect(res.status).toBe(200);
    const ids: string[] = res.body.data.emails.map((e: any) => e.email);
    for (const id of ids) expect((await settled(id)).status).toBe('SENT');
    const ev = (i: number, event: string, extra: Record<string, unknown> = {}) => {
      const r = received([hard, soft, spam][i])[0];
      return {
        email: r.email,
        timestamp: Math.floor(Date.now() / 1000),
        event,
        sg_event_id: crypto.randomUUID(),
        sg_message_id: `${r.messageId}.f.1`,
        email_id: ids[i],
        project_id: p.projectId,
        ...extra,
      };
    };
    const posted = await postSigned([ev(0, 'bounce', { type: 'bounce' }), ev(1, 'bounce', { type: 'blocked' }), ev(2, 'spamreport')]);
    expect(posted.status).toBe(200);

    const entries = (await list('?limit=200')).body.data;
    expect(entries.find((s: any) => s.email === hard)).toMatchObject({ reason: 'HARD_BOUNCE', emailId: ids[0], expiresAt: null });
    expect(entries.find((s: any) => s.email === spam)).toMatchObject({ reason: 'COMPLAINT', emailId: ids[2] });
    expect(entries.find((s: any) => s.email === soft)).toBeUndefined();

    // The next /v1/send to the bounced address is not handed over; the soft-bounced one is.
    const next = await h.http
      .post('/v1/send')
      .set(key())
      .send({ from: FROM, subject: 'Again', body: '<p>Again</p>', to: [hard, soft] });
    const [hardAgain, softAgain] = next.body.data.emails.map((e: any) => e.email);
    expect((await settled(hardAgain)).status).toBe('SUPPRESSED');
    expect((await settled(softAgain)).status).toBe('SENT');
    expect(received(hard)).toHaveLength(1);
    expect(received(soft)).toHaveLength(2);
  });
});

describe('the check at hand-over', () => {
  it('/v1/send: a suppressed recipient gets nothing, its email is SUPPRESSED with a routed email.suppressed event; the others are delivered', async () => {
    const api = workflowApi(h, p);
    // Routed like the other email.* events: a workflow on email.suppressed marks the contact.
    await api.build('email.suppressed', { mark: { type: 'UPDATE_CONTACT', config: { data: { suppressedSeen: true } } } }, [['trigger', 'mark']], {
      enabled: true,
    });
    const [blocked, ok] = [uniqueEmail('blocked'), uniqueEmail('ok')];
    expect((await suppress([blocked.toUpperCase()])).status).toBe(201);
    const res = await h.http
      .post('/v1/send')
      .set(key())
      .send({ from: FROM, subject: 'Hi', body: '<p>Hi</p>', to: [blocked, ok] });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const [blockedId, okId] = res.body.data.emails.map((e: any) => e.email);
    const row = await settled(blockedId);
    expect(row.status).toBe('SUPPRESSED');
    expect(row.provider_message_id).toBeNull();
    expect((await settled(okId)).status).toBe('SENT');
    expect(received(blocked)).toEqual([]);
    expect(received(ok)).toHaveLength(1);
    const [event] = await suppressedEvents(blockedId);
    expect(event).toMatchObject({ project_id: p.projectId, contact_id: row.contact_id });
    await eventually(async () => (await h.deps.knex('contacts').where({ id: row.contact_id }).first()).data?.suppressedSeen === true);
    // The activity feed lists it.
    const feed = await h.http.get('/activity?type=suppressed').set(key());
    expect(feed.status).toBe(200);
    expect(JSON.stringify(feed.body)).toContain(blockedId);
    // And the email's story says so.
    const story = await h.http.get(`/emails/${blockedId}`).set(key());
    expect(story.status).toBe(200);
    expect(story.body).toMatchObject({ status: 'SUPPRESSED' });
    expect(story.body.events.map((e: any) => e.type)).toEqual(['suppressed']);
  });

  it('an expired entry no longer suppresses, and a deleted one lets mail through again', async () => {
    const [expired, removed] = [uniqueEmail('expired'), uniqueEmail('removed')];
    expect((await suppress([expired, removed])).status).toBe(201);
    await h.deps
      .knex('suppressions')
      .where({ project_id: p.projectId, email: expired })
      .update({ expires_at: new Date(Date.now() - 1000) });
    expect((await h.http.delete(`/suppressions/${removed}`).set(key())).status).toBe(204);
    const res = await h.http
      .post('/v1/send')
      .set(key())
      .send({ from: FROM, subject: 'Hi', body: '<p>Hi</p>', to: [expired, removed] });
    for (const e of res.body.data.emails) expect((await settled(e.email)).status).toBe('SENT');
    expect(received(expired)).toHaveLength(1);
    expect(received(removed)).toHaveLength(1);
  });

  it('workflow SEND_EMAIL: the suppressed contact gets nothing (step COMPLETED with status SUPPRESSED); another is sent', async () => {
    const api = workflowApi(h, p);
    const event = `supp-wf-${Date.now()}`;
    const wf = await api.build(
      event,
      { send: { type: 'SEND_EMAIL', config: { subject: 'Hello', body: '<p>hello</p>', from: FROM, type: 'TRANSACTIONAL' } } },
      [['trigger', 'send']],
      { enabled: true },
    );
    const [blocked, ok] = [uniqueEmail('wfblocked'), uniqueEmail('wfok')];
    expect((await suppress([blocked])).status).toBe(201);
    for (const e of [blocked, ok]) expect((await api.track(e, event)).status).toBe(200);
    const contact = async (email: string) => (await h.deps.knex('contacts').where({ project_id: p.projectId, email }).first()).id as string;
    const done = async (email: string) => api.until(wf.id, (await api.executionOf(wf.id, await contact(email))).id, ['COMPLETED', 'FAILED', 'EXITED']);
    const b = await done(blocked);
    expect(b.status).toBe('COMPLETED');
    expect(b.steps[1].output).toMatchObject({ status: 'SUPPRESSED' });
    const blockedEmail = await settled(b.steps[1].output.emailId);
    expect(blockedEmail.status).toBe('SUPPRESSED');
    await eventually(async () => (await suppressedEvents(blockedEmail.id)).length === 1);
    const o = await done(ok);
    expect(o.steps[1].output).toMatchObject({ status: 'SENT' });
    expect(received(blocked)).toEqual([]);
    expect(received(ok)).toHaveLength(1);
  });

  it('campaign test send: a suppressed address gets nothing and its email is SUPPRESSED; another address gets the test', async () => {
    const [blocked, ok] = [uniqueEmail('testblocked'), uniqueEmail('testok')];
    for (const email of [blocked, ok]) await h.http.post('/contacts').set(key()).send({ email });
    expect((await suppress([blocked])).status).toBe(201);
    const draft = await h.http.post('/campaigns').set(key()).send({ name: 'test send', subject: 'Hi', body: '<p>Hi</p>', from: FROM, audienceType: 'ALL' });
    expect(draft.status).toBe(201);
    const id = draft.body.data.id;
    const t1 = await h.http.post(`/campaigns/${id}/test`).set(key()).send({ email: blocked });
    const t2 = await h.http.post(`/campaigns/${id}/test`).set(key()).send({ email: ok });
    expect([t1.status, t2.status]).toEqual([200, 200]);
    expect((await settled(t1.body.data.emailId)).status).toBe('SUPPRESSED');
    // Recorded by the delivery workflow right after the claim.
    await eventually(async () => (await suppressedEvents(t1.body.data.emailId)).length === 1);
    expect((await settled(t2.body.data.emailId)).status).toBe('SENT');
    expect(received(blocked)).toEqual([]);
    expect(received(ok)).toHaveLength(1);
  });

  it('campaign: of 5,000 recipients with 500 suppressed, exactly 4,500 are delivered; the 500 are SUPPRESSED with their events', async () => {
    const fx = await createProjectFixture(h, 'campaign');
    await verifiedDomain(h, fx.projectId, DOMAIN);
    const tag = crypto.randomBytes(4).toString('hex');
    const addrs = Array.from({ length: 5000 }, (_, i) => `c${String(i).padStart(4, '0')}-${tag}@example.org`);
    const rows0 = addrs.map((email, i) => ({ id: `cnt_${tag}${String(i).padStart(6, '0')}`, project_id: fx.projectId, email, subscribed: true, data: '{}' }));
    for (let i = 0; i < rows0.length; i += 1000) await h.deps.knex('contacts').insert(rows0.slice(i, i + 1000));
    const blocked = addrs.filter((_, i) => i % 10 === 3);
    expect((await suppress(blocked, {}, fx)).body.added).toHaveLength(500);
    const created = await h.http
      .post('/campaigns')
      .set(key(fx))
      .send({ name: 'big', subject: 'Hi', body: '<p>Hi {{ email }}</p>', from: FROM, audienceType: 'ALL' });
    const campaignId = created.body.data.id;
    expect((await h.http.post(`/campaigns/${campaignId}/send`).set(key(fx)).send({})).status).toBeLessThan(300);
    await eventually(async () => (await h.deps.knex('campaigns').where({ id: campaignId }).first()).status === 'SENT', 150_000);

    const mine = sink.recipients().filter((r) => r.email.endsWith(`-${tag}@example.org`));
    expect(mine).toHaveLength(4500);
    expect(mine.filter((r) => blocked.includes(r.email))).toEqual([]);
    const rows = await h.deps.knex('emails').where({ campaign_id: campaignId }).select('status', 'to_email', 'id');
    expect(rows.filter((r) => r.status === 'SENT')).toHaveLength(4500);
    const suppressedRows = rows.filter((r) => r.status === 'SUPPRESSED');
    expect(suppressedRows.map((r) => r.to_email).sort()).toEqual([...blocked].sort());
    const events = await h.deps.knex('events').where({ project_id: fx.projectId, name: 'email.suppressed' });
    expect(events.map((e) => e.data.emailId).sort()).toEqual(suppressedRows.map((r) => r.id).sort());
    expect(events.every((e) => e.data.campaignId === campaignId)).toBe(true);
    expect((await h.deps.knex('campaigns').where({ id: campaignId }).first()).sent_count).toBe(4500);
  }, 240_000);
});
