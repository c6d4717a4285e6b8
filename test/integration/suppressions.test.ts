import crypto from 'node:crypto';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { sendgridEnv, startSendgridSink, SendgridSink } from '../helpers/sendgridSink';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';

/**
 * The per-project suppression list (docs/api.md "Suppressions"): its routes, and SendGrid's signed
 * events that add to it, against the real worker and a SendGrid sink. The check at every hand-over
 * (/v1/send batches, campaigns, workflow SEND_EMAIL steps, campaign test sends) and SMTP refusals
 * that add to the list run against the real SMTP transport: suppressionHandOver.test.ts.
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
