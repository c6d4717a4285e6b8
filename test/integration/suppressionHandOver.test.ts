import crypto from 'node:crypto';
import type { AddressObject } from 'mailparser';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { startSmtpSink, SmtpSink } from '../helpers/smtpSink';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { workflowApi } from '../helpers/workflows';

/**
 * The suppression list checked at every hand-over (docs/api.md "Suppressions"): /v1/send batches,
 * campaigns, single deliveries of workflow SEND_EMAIL steps and campaign test sends, through the
 * real worker and the real SMTP transport (nodemailer's pool) into the local relay
 * (test/helpers/smtpSink.ts, `smtp-server`). What the relay saw is the proof: a suppressed address
 * is never offered at RCPT TO, the others arrive. Also: an SMTP refusal at hand-over puts the
 * address on the list (a 5xx) or not (a 4xx). The list's routes and SendGrid's events that add to
 * it are in suppressions.test.ts.
 */

let h: Harness;
let p: ProjectFixture;
let sink: SmtpSink;

const DOMAIN = 'supp.example.com';
const FROM = `team@${DOMAIN}`;

beforeAll(async () => {
  sink = await startSmtpSink();
  // 25 pooled connections rather than 5: the 5,000-recipient campaign is one SMTP transaction per
  // recipient, mostly waiting on round trips; 65-67 s instead of 80 s side by side on a loaded machine.
  h = await startHarness({ worker: true, env: { EMAIL_TRANSPORT: 'smtp', SMTP_URL: sink.url, SMTP_POOL_SIZE: '25' } });
  p = await createProjectFixture(h);
  await verifiedDomain(h, p.projectId, DOMAIN);
});
afterAll(async () => {
  await h?.stop();
  await sink?.stop();
});

const key = (fx: ProjectFixture = p) => bearer(fx.secretKey);
/** Creates a campaign to the whole audience of `fx` and sends it now; its id. */
async function sendToAll(fx: ProjectFixture, content: { name: string; subject: string; body: string }): Promise<string> {
  const created = await h.http
    .post('/campaigns')
    .set(key(fx))
    .send({ ...content, from: FROM, audienceType: 'ALL' });
  expect(created.status).toBe(201);
  const campaignId = created.body.data.id;
  expect((await h.http.post(`/campaigns/${campaignId}/send`).set(key(fx)).send({})).status).toBe(200);
  return campaignId;
}
const suppress = (emails: string[], fx: ProjectFixture = p) => h.http.post('/suppressions').set(key(fx)).send({ emails });
const listed = async (email: string, fx: ProjectFixture = p) =>
  (await h.http.get(`/suppressions?search=${encodeURIComponent(email)}`).set(key(fx))).body.data as Array<Record<string, unknown>>;
const emailRow = (id: string) => h.deps.knex('emails').where({ id }).first();
const settled = (id: string) =>
  eventually(async () => {
    const row = await emailRow(id);
    return row && !['QUEUED', 'SENDING'].includes(row.status) ? row : null;
  });
const waitStatus = (id: string, status: string) =>
  eventually(async () => {
    const row = await emailRow(id);
    return row?.status === status ? row : null;
  });
const suppressedEvents = (emailId: string) => h.deps.knex('events').where({ name: 'email.suppressed' }).whereRaw(`data->>'emailId' = ?`, [emailId]);
const sendTo = (to: string[], subject = 'Hi') =>
  h.http
    .post('/v1/send')
    .set(key())
    .send({ from: FROM, subject, body: `<p>${subject}</p>`, to });

/** The relay never saw the address: not offered at RCPT TO, no message. */
function nothingFor(address: string) {
  expect(sink.offered(address)).toBe(0);
  expect(sink.mailsTo(address)).toEqual([]);
}

/** The relay accepted `n` messages for the address, each with only it in the envelope and the To header, under `subject`. */
async function receivedBy(address: string, subject: string, n = 1) {
  const mails = sink.mailsTo(address);
  expect(mails).toHaveLength(n);
  expect(sink.offered(address)).toBeGreaterThanOrEqual(n);
  for (const mail of mails) {
    expect(mail.to).toEqual([address]);
    const parsed = await sink.parse(mail);
    expect(parsed.subject).toBe(subject);
    expect((parsed.to as AddressObject).value.map((a) => a.address)).toEqual([address]);
  }
}

describe('the check at hand-over (SMTP)', () => {
  it('/v1/send: a suppressed recipient is never offered to the relay, its email is SUPPRESSED with a routed email.suppressed event; the others arrive', async () => {
    const api = workflowApi(h, p);
    // Routed like the other email.* events: a workflow on email.suppressed marks the contact.
    await api.build('email.suppressed', { mark: { type: 'UPDATE_CONTACT', config: { data: { suppressedSeen: true } } } }, [['trigger', 'mark']], {
      enabled: true,
    });
    const [blocked, ok, ok2] = [uniqueEmail('blocked'), uniqueEmail('ok'), uniqueEmail('ok2')];
    expect((await suppress([blocked.toUpperCase()])).status).toBe(201);
    const res = await sendTo([ok, blocked, ok2]);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const [okId, blockedId, ok2Id] = res.body.data.emails.map((e: any) => e.email);
    const row = await settled(blockedId);
    expect(row.status).toBe('SUPPRESSED');
    expect(row.provider_message_id).toBeNull();
    expect((await settled(okId)).status).toBe('SENT');
    expect((await settled(ok2Id)).status).toBe('SENT');
    nothingFor(blocked);
    await receivedBy(ok, 'Hi');
    await receivedBy(ok2, 'Hi');
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
    const [expired, removed, kept] = [uniqueEmail('expired'), uniqueEmail('removed'), uniqueEmail('kept')];
    expect((await suppress([expired, removed, kept])).status).toBe(201);
    await h.deps
      .knex('suppressions')
      .where({ project_id: p.projectId, email: expired })
      .update({ expires_at: new Date(Date.now() - 1000) });
    expect((await h.http.delete(`/suppressions/${removed}`).set(key())).status).toBe(204);
    const res = await sendTo([expired, removed, kept], 'Again');
    const [expiredId, removedId, keptId] = res.body.data.emails.map((e: any) => e.email);
    expect((await settled(expiredId)).status).toBe('SENT');
    expect((await settled(removedId)).status).toBe('SENT');
    // The entry left in place still holds.
    expect((await settled(keptId)).status).toBe('SUPPRESSED');
    await receivedBy(expired, 'Again');
    await receivedBy(removed, 'Again');
    nothingFor(kept);
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
    expect((await settled(o.steps[1].output.emailId)).status).toBe('SENT');
    nothingFor(blocked);
    await receivedBy(ok, 'Hello');
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
    nothingFor(blocked);
    await receivedBy(ok, '[Test] Hi');
  });

  it('campaign: of 5,000 recipients with 500 suppressed, the relay receives exactly the 4,500 others, once each; the 500 are SUPPRESSED with their events', async () => {
    const fx = await createProjectFixture(h, 'campaign');
    await verifiedDomain(h, fx.projectId, DOMAIN);
    const tag = crypto.randomBytes(4).toString('hex');
    const addrs = Array.from({ length: 5000 }, (_, i) => `c${String(i).padStart(4, '0')}-${tag}@example.org`);
    const rows0 = addrs.map((email, i) => ({ id: `cnt_${tag}${String(i).padStart(6, '0')}`, project_id: fx.projectId, email, subscribed: true, data: '{}' }));
    for (let i = 0; i < rows0.length; i += 1000) await h.deps.knex('contacts').insert(rows0.slice(i, i + 1000));
    const blocked = addrs.filter((_, i) => i % 10 === 3);
    const blockedSet = new Set(blocked);
    const expected = addrs.filter((a) => !blockedSet.has(a));
    expect((await suppress(blocked, fx)).body.added).toHaveLength(500);
    const campaignId = await sendToAll(fx, { name: 'big', subject: 'Hi {{ email }}', body: '<p>Hi {{ email }}</p>' });
    await eventually(async () => (await h.deps.knex('campaigns').where({ id: campaignId }).first()).status === 'SENT', 210_000, 250);

    // What the relay accepted for this campaign: one message per recipient, one recipient per message.
    const mine = sink.mails.filter((m) => m.to.some((t) => t.endsWith(`-${tag}@example.org`)));
    expect(mine).toHaveLength(4500);
    expect(mine.filter((m) => m.to.length !== 1)).toEqual([]);
    const arrived = mine.map((m) => m.to[0]);
    expect(new Set(arrived).size).toBe(4500);
    expect(arrived.sort()).toEqual(expected);
    // Each of the others was offered at RCPT TO once; none of the 500 was offered at all.
    expect(expected.filter((a) => sink.offered(a) !== 1)).toEqual([]);
    expect(blocked.filter((a) => sink.offered(a) > 0)).toEqual([]);
    // A sample's message is the campaign's, rendered for its recipient.
    const parsed = await sink.parse(mine.find((m) => m.to[0] === expected[0])!);
    expect(parsed.subject).toBe(`Hi ${expected[0]}`);

    const rows = await h.deps.knex('emails').where({ campaign_id: campaignId }).select('status', 'to_email', 'id');
    expect(rows.filter((r) => r.status === 'SENT')).toHaveLength(4500);
    const suppressedRows = rows.filter((r) => r.status === 'SUPPRESSED');
    expect(suppressedRows.map((r) => r.to_email).sort()).toEqual([...blocked].sort());
    const events = await h.deps.knex('events').where({ project_id: fx.projectId, name: 'email.suppressed' });
    expect(events.map((e) => e.data.emailId).sort()).toEqual(suppressedRows.map((r) => r.id).sort());
    expect(events.every((e) => e.data.campaignId === campaignId)).toBe(true);
    expect((await h.deps.knex('campaigns').where({ id: campaignId }).first()).sent_count).toBe(4500);
  }, 300_000);
});

describe('SMTP refusals at hand-over and the list', () => {
  /** Four addresses the relay refuses: for good at RCPT TO and after DATA, for now (once) at each. */
  function refusing() {
    const [rcpt5xx, data5xx, rcpt4xx, data4xx] = [uniqueEmail('r550'), uniqueEmail('d554'), uniqueEmail('r451'), uniqueEmail('d452')];
    sink.refuse(rcpt5xx, { at: 'RCPT', code: 550 });
    sink.refuse(data5xx, { at: 'DATA', code: 554 });
    sink.refuse(rcpt4xx, { at: 'RCPT', code: 451, times: 1 });
    sink.refuse(data4xx, { at: 'DATA', code: 452, times: 1 });
    return { rcpt5xx, data5xx, rcpt4xx, data4xx };
  }

  it('/v1/send: a 5xx at RCPT TO or after DATA lists the address as HARD_BOUNCE with its email, and the next send is never offered; a 4xx lists nothing and is delivered', async () => {
    const { rcpt5xx, data5xx, rcpt4xx, data4xx } = refusing();
    const res = await sendTo([rcpt5xx, data5xx, rcpt4xx, data4xx], 'First');
    expect(res.status).toBe(200);
    const [r5, d5, r4, d4] = res.body.data.emails.map((e: any) => e.email as string);
    // Refused for good: FAILED with the reply, then BOUNCED through the provider-event path.
    for (const [address, id] of [
      [rcpt5xx, r5],
      [data5xx, d5],
    ]) {
      const row = await waitStatus(id, 'BOUNCED');
      expect(row.error).toMatch(/^SMTP server answered 55\d /);
      expect(await listed(address)).toEqual([expect.objectContaining({ email: address, reason: 'HARD_BOUNCE', emailId: id, expiresAt: null })]);
      expect(sink.refusals(address)).toBe(1);
      expect(sink.mailsTo(address)).toEqual([]);
    }
    // Refused for now: retried, delivered once, and not listed.
    for (const [address, id] of [
      [rcpt4xx, r4],
      [data4xx, d4],
    ]) {
      expect((await waitStatus(id, 'SENT')).error).toBeNull();
      expect(sink.refusals(address)).toBe(1);
      await receivedBy(address, 'First');
      expect(await listed(address)).toEqual([]);
    }

    // The next /v1/send: the listed addresses are SUPPRESSED and never reach the relay again.
    const offeredBefore = [rcpt5xx, data5xx].map((a) => sink.offered(a));
    expect(offeredBefore).toEqual([1, 1]);
    const again = await sendTo([rcpt5xx, data5xx, rcpt4xx, data4xx], 'Second');
    const ids: string[] = again.body.data.emails.map((e: any) => e.email);
    expect((await settled(ids[0])).status).toBe('SUPPRESSED');
    expect((await settled(ids[1])).status).toBe('SUPPRESSED');
    expect((await settled(ids[2])).status).toBe('SENT');
    expect((await settled(ids[3])).status).toBe('SENT');
    expect([rcpt5xx, data5xx].map((a) => sink.offered(a))).toEqual(offeredBefore);
    expect(sink.mailsTo(rcpt5xx)).toEqual([]);
    expect(sink.mailsTo(data5xx)).toEqual([]);
    expect(sink.mailsTo(rcpt4xx)).toHaveLength(2);
    expect(sink.mailsTo(data4xx)).toHaveLength(2);
  });

  it('campaign: the recipients refused with a 5xx are listed as HARD_BOUNCE with their emails; those refused with a 4xx and the rest are delivered and not listed', async () => {
    const fx = await createProjectFixture(h, 'refusals');
    await verifiedDomain(h, fx.projectId, DOMAIN);
    const { rcpt5xx, data5xx, rcpt4xx, data4xx } = refusing();
    const ok = uniqueEmail('cok');
    const audience = [rcpt5xx, data5xx, rcpt4xx, data4xx, ok];
    for (const email of audience) expect((await h.http.post('/contacts').set(key(fx)).send({ email, subscribed: true })).status).toBeLessThan(300);
    const campaignId = await sendToAll(fx, { name: 'refusals', subject: 'News', body: '<p>News</p>' });
    const campaign = await eventually(async () => {
      const c = await h.deps.knex('campaigns').where({ id: campaignId }).first();
      return c.status === 'SENT' ? c : null;
    }, 60_000);
    expect(campaign).toMatchObject({ sent_count: 3, failed_count: 2 });

    const rows = await h.deps.knex('emails').where({ campaign_id: campaignId }).select('id', 'to_email', 'status');
    const idOf = (address: string) => rows.find((r) => r.to_email === address)!.id;
    // The bounce is applied after the refusal is recorded: wait for it.
    await eventually(async () => ((await listed(rcpt5xx, fx)).length && (await listed(data5xx, fx)).length ? true : null));
    const all = (await h.http.get('/suppressions?limit=200').set(key(fx))).body.data;
    expect(all).toEqual(
      [rcpt5xx, data5xx].sort().map((email) => expect.objectContaining({ email, reason: 'HARD_BOUNCE', emailId: idOf(email), expiresAt: null })),
    );
    for (const address of [rcpt5xx, data5xx]) expect(sink.mailsTo(address)).toEqual([]);
    for (const address of [rcpt4xx, data4xx]) expect(sink.refusals(address)).toBe(1);
    for (const address of [rcpt4xx, data4xx, ok]) await receivedBy(address, 'News');
  });
});
