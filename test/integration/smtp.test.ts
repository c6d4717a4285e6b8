import crypto from 'node:crypto';
import { dkimVerify } from 'mailauth/lib/dkim/verify';
import { verpReturnPath } from '../../lib/verp';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { startSmtpSink, SmtpSink, SinkMail } from '../helpers/smtpSink';
import { startDnsServer, TestDnsServer } from '../helpers/dnsServer';
import { uniqueEmail } from '../helpers/fixtures';
import { open } from '../../lib/secretBox';

/**
 * EMAIL_TRANSPORT=smtp end to end: the real nodemailer pool against a local SMTP server
 * (test/helpers/smtpSink.ts), domains verified through the local DNS server, and the DKIM
 * signatures checked by mailauth against the record GET /domains lists.
 */

let h: Harness;
let p: ProjectFixture;
let sink: SmtpSink;
let dns: TestDnsServer;

const DOMAIN = 'mail.example.com';
const SPF = 'spf.smtp.test';

beforeAll(async () => {
  [sink, dns] = await Promise.all([startSmtpSink(), startDnsServer()]);
  h = await startHarness({
    worker: true,
    // The project send throttle is not what these tests measure.
    env: { EMAIL_TRANSPORT: 'smtp', SMTP_URL: sink.url, DNS_SERVERS: dns.address, SPF_INCLUDE: SPF, SEND_RATE_PER_SECOND: '100000' },
  });
  p = await createProjectFixture(h);
});
afterAll(async () => {
  await h?.stop();
  await Promise.all([sink?.stop(), dns?.stop()]);
});

const key = (fx?: ProjectFixture) => bearer((fx ?? p).secretKey);
const emailRow = (id: string) => h.deps.knex('emails').where({ id }).first();
const waitStatus = (id: string, statuses: string[]) =>
  eventually(async () => ((await emailRow(id)) && statuses.includes((await emailRow(id)).status) ? emailRow(id) : null));

/** The domain's listed records published in the local DNS, then checked through the API. */
async function verifiedDomain(fx: ProjectFixture, domain: string): Promise<any> {
  const created = await h.http.post('/domains').set(key(fx)).send({ domain });
  expect(created.status).toBe(201);
  for (const r of created.body.records) dns.set(r.name, 'TXT', [r.value]);
  const checked = await h.http.get(`/domains/${created.body.id}/verify`).set(key(fx));
  expect(checked.body.status).toBe('VERIFIED');
  return checked.body;
}

/** What a receiver's DNS would answer for a DKIM key: the TXT record GET /domains/project/:id lists. */
async function dkimResolver(fx: ProjectFixture) {
  const listed = await h.http.get(`/domains/project/${fx.projectId}`).set(key(fx));
  const records = new Map<string, string>(
    listed.body.flatMap((d: any) => d.records.filter((r: any) => r.purpose === 'dkim').map((r: any) => [r.name, r.value])),
  );
  return async (name: string, rr: string) => {
    const value = rr === 'TXT' ? records.get(name.toLowerCase()) : undefined;
    if (!value) throw Object.assign(new Error(`no ${rr} at ${name}`), { code: 'ENOTFOUND' });
    return [[value]];
  };
}

async function dkimOf(raw: Buffer | string, fx: ProjectFixture = p) {
  const { results } = await dkimVerify(raw, { resolver: (await dkimResolver(fx)) as any });
  return results;
}

const waitMail = (address: string, n = 1) => eventually(async () => (sink.mailsTo(address).length >= n ? sink.mailsTo(address) : null));

describe('sender domains when the service signs (SMTP)', () => {
  it('lists a required DKIM record, stays PENDING without it, verifies with it, and stores the private key sealed', async () => {
    const domain = `dkim-${crypto.randomBytes(3).toString('hex')}.example.com`;
    const created = await h.http.post('/domains').set(key()).send({ domain });
    expect(created.status).toBe(201);
    const dkim = created.body.records.find((r: any) => r.purpose === 'dkim');
    expect(dkim).toMatchObject({ type: 'TXT', name: `svc._domainkey.${domain}`, required: true, valid: false });
    expect(dkim.value).toMatch(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/]+=*$/);

    // Everything but the key: still pending.
    for (const r of created.body.records.filter((r: any) => r.purpose !== 'dkim')) dns.set(r.name, 'TXT', [r.value]);
    const pending = await h.http.get(`/domains/${created.body.id}/verify`).set(key());
    expect(pending.body.status).toBe('PENDING');
    expect(pending.body.records.find((r: any) => r.purpose === 'dkim').valid).toBe(false);

    // Another key under the selector does not count; ours (with whitespace as DNS UIs add it) does.
    dns.set(dkim.name, 'TXT', ['v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAwrong']);
    expect((await h.http.get(`/domains/${created.body.id}/verify`).set(key())).body.status).toBe('PENDING');
    dns.set(dkim.name, 'TXT', [dkim.value.replace('; p=', ';  p= ')]);
    const verified = await h.http.get(`/domains/${created.body.id}/verify`).set(key());
    expect(verified.body.status).toBe('VERIFIED');
    expect(verified.body.records.find((r: any) => r.purpose === 'dkim').valid).toBe(true);

    const stored = await h.deps.knex('dkim_keys').where({ domain_id: created.body.id }).first();
    expect(stored.private_key_sealed).not.toMatch(/PRIVATE KEY/);
    const pem = open(stored.private_key_sealed, h.config.email.encryptionKey, `dkim:${domain}`);
    expect(crypto.createPublicKey(pem).export({ type: 'spki', format: 'der' }).toString('base64')).toBe(stored.public_key);
    expect(dkim.value.endsWith(stored.public_key)).toBe(true);
  });
});

describe('EMAIL_TRANSPORT=smtp', () => {
  beforeAll(async () => {
    await verifiedDomain(p, DOMAIN);
  });

  it('delivers /v1/send as a DKIM-signed MIME message with custom headers, attachments and reply-to; a tampered copy fails DKIM', async () => {
    const to = uniqueEmail('smtp');
    const content = Buffer.from('hello attachment').toString('base64');
    const res = await h.http
      .post('/v1/send')
      .set(key())
      .send({
        to: { name: 'Ann Example', email: to },
        from: { name: 'Hello Team', email: `hello@${DOMAIN}` },
        subject: 'Hi {{ name }}',
        body: '<p>Hello {{ name }}</p>',
        data: { name: 'Ann' },
        reply: 'replies@example.org',
        headers: { 'X-Campaign': 'abc' },
        attachments: [{ filename: 'a.txt', content, contentType: 'text/plain' }],
      });
    expect(res.status).toBe(200);
    const row = await waitStatus(res.body.data.emails[0].email, ['SENT']);
    const [mail] = await waitMail(to);
    expect(mail.to).toEqual([to]);
    // MAIL FROM is the VERP return path naming the email (lib/verp.ts); the From header stays the sender.
    expect(mail.from).toBe(verpReturnPath(h.config.jwtSecret, row.id, `bounces.${DOMAIN}`));

    const parsed = await sink.parse(mail);
    expect(parsed.subject).toBe('Hi Ann');
    expect(parsed.html).toBe('<p>Hello Ann</p>');
    expect(parsed.from!.value).toEqual([{ name: 'Hello Team', address: `hello@${DOMAIN}` }]);
    expect((parsed.to as any).value).toEqual([{ name: 'Ann Example', address: to }]);
    expect(parsed.replyTo!.value).toEqual([{ name: '', address: 'replies@example.org' }]);
    expect(parsed.headers.get('x-campaign')).toBe('abc');
    expect(parsed.headers.get('list-unsubscribe')).toBeUndefined();
    expect(parsed.attachments).toHaveLength(1);
    expect(parsed.attachments[0]).toMatchObject({ filename: 'a.txt', contentType: 'text/plain' });
    expect(parsed.attachments[0].content.toString()).toBe('hello attachment');
    expect(parsed.messageId).toBe(row.provider_message_id);

    const [sig] = await dkimOf(mail.raw);
    expect(sig.status.result).toBe('pass');
    expect(sig.signingDomain).toBe(DOMAIN);
    expect(sig.selector).toBe('svc');

    const tampered = Buffer.from(mail.raw.toString('utf8').replace('Subject: Hi Ann', 'Subject: Hi Bob'));
    expect(tampered.equals(mail.raw)).toBe(false);
    const [bad] = await dkimOf(tampered);
    expect(bad.status.result).toBe('fail');
  });

  it("signs mail from a subdomain of a verified domain with the domain's key", async () => {
    const to = uniqueEmail('sub');
    const res = await h.http
      .post('/v1/send')
      .set(key())
      .send({ to, from: `news@eu.${DOMAIN}`, subject: 'Sub', body: '<p>x</p>' });
    expect(res.status).toBe(200);
    const [mail] = await waitMail(to);
    const [sig] = await dkimOf(mail.raw);
    expect(sig).toMatchObject({ signingDomain: DOMAIN, status: { result: 'pass' } });
  });

  it('marks marketing mail with the signed one-click pair (List-Unsubscribe + List-Unsubscribe-Post)', async () => {
    const tpl = await h.http
      .post('/templates')
      .set(key())
      .send({
        name: 'news',
        subject: 'News',
        body: '<a href="{{ unsubscribeUrl }}">u</a>',
        from: `team@${DOMAIN}`,
        type: 'MARKETING',
      });
    expect(tpl.status).toBe(201);
    const to = uniqueEmail('mkt');
    const res = await h.http.post('/v1/send').set(key()).send({ to, template: tpl.body.id });
    expect(res.status).toBe(200);
    const [mail] = await waitMail(to);
    const parsed = await sink.parse(mail);
    const link = (parsed.html as string).match(/href="([^"]+)"/)![1];
    // mailparser folds the List-* headers into one structured value; the lines as sent say it plainly.
    const line = (name: string) => parsed.headerLines.find((l) => l.key === name)?.line.replace(/\r?\n\s+/g, ' ');
    expect(line('list-unsubscribe-post')).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    expect(line('list-unsubscribe')).toBe(`List-Unsubscribe: <${link}>`);
    expect(link).toMatch(/\/unsubscribe\//);
    const [sig] = await dkimOf(mail.raw);
    expect(sig.status.result).toBe('pass');
    // RFC 8058: the signature must cover both headers.
    const signed = mail.raw
      .toString()
      .match(/DKIM-Signature:[\s\S]*?\bh=([^;]+);/)![1]
      .replace(/\s+/g, '')
      .toLowerCase()
      .split(':');
    expect(signed).toEqual(expect.arrayContaining(['list-unsubscribe', 'list-unsubscribe-post', 'from', 'subject']));
  });

  it('a 550 at RCPT fails the email and counts a bounce: contact unsubscribed, email.bounced recorded, address suppressed; nothing arrives', async () => {
    const to = uniqueEmail('gone');
    sink.refuse(to, { at: 'RCPT', code: 550 });
    const res = await h.http
      .post('/v1/send')
      .set(key())
      .send({ to, subscribed: true, from: `hello@${DOMAIN}`, subject: 'x', body: '<p>x</p>' });
    expect(res.status).toBe(200);
    const { email: emailId, contact } = res.body.data.emails[0];
    // FAILED with the server's reply, then the bounce moves it on to BOUNCED as a provider's bounce report would.
    const row = await waitStatus(emailId, ['BOUNCED']);
    expect(row.error).toMatch(/^SMTP server answered 550 /);
    expect(row.bounced_at).not.toBeNull();
    expect(row.provider_message_id).toBeNull();
    await eventually(async () => (await h.deps.knex('contacts').where({ id: contact.id }).first()).subscribed === false);
    const [bounced] = await h.deps.knex('events').where({ contact_id: contact.id, name: 'email.bounced' });
    expect(bounced.data).toMatchObject({ emailId, provider: 'smtp', reason: expect.stringMatching(/550/) });
    expect(sink.refusals(to)).toBe(1);
    expect(sink.mailsTo(to)).toHaveLength(0);
    // The refusal put the address on the suppression list: the next email to it is never offered to the relay.
    const listed = await h.http.get(`/suppressions?search=${encodeURIComponent(to)}`).set(key());
    expect(listed.body.data).toEqual([expect.objectContaining({ email: to, reason: 'HARD_BOUNCE', emailId })]);
    const again = await h.http
      .post('/v1/send')
      .set(key())
      .send({ to, from: `hello@${DOMAIN}`, subject: 'y', body: '<p>y</p>' });
    await waitStatus(again.body.data.emails[0].email, ['SUPPRESSED']);
    expect(sink.refusals(to)).toBe(1);
    expect(sink.mailsTo(to)).toHaveLength(0);
  });

  it('a 4xx is retried and later delivered, once', async () => {
    const to = uniqueEmail('later');
    sink.refuse(to, { at: 'RCPT', code: 451, times: 1 });
    const res = await h.http
      .post('/v1/send')
      .set(key())
      .send({ to, from: `hello@${DOMAIN}`, subject: 'x', body: '<p>x</p>' });
    const row = await waitStatus(res.body.data.emails[0].email, ['SENT']);
    expect(sink.refusals(to)).toBe(1);
    expect(sink.mailsTo(to)).toHaveLength(1);
    expect(row.error).toBeNull();
  });
});

// ───────────────────────────── campaigns ─────────────────────────────

const UNKNOWN = 'delivery outcome unknown after an interrupted hand-over; not retried to avoid a duplicate';

/** A project of its own with the verified domain and `n` subscribed contacts written straight to the table. */
async function campaignProject(n: number): Promise<{ fx: ProjectFixture; emails: string[]; domain: string }> {
  const fx = await createProjectFixture(h);
  const tag = crypto.randomBytes(3).toString('hex');
  const domain = `c-${tag}.example.com`;
  await verifiedDomain(fx, domain);
  const emails = Array.from({ length: n }, (_, i) => `r${i}-${tag}@example.org`);
  for (let i = 0; i < n; i += 1000) {
    await h.deps
      .knex('contacts')
      .insert(
        emails
          .slice(i, i + 1000)
          .map((email, j) => ({ id: `cnt_${tag}${String(i + j).padStart(6, '0')}`, project_id: fx.projectId, email, subscribed: true, data: '{}' })),
      );
  }
  return { fx, emails, domain };
}

async function sendCampaign(fx: ProjectFixture, domain: string, harness: Harness = h): Promise<string> {
  const res = await harness.http
    .post('/campaigns')
    .set(key(fx))
    .send({
      name: 'SMTP news',
      subject: 'For {{ email }}',
      body: '<p>Hi</p><a href="{{ unsubscribeUrl }}">u</a>',
      from: `news@${domain}`,
      audienceType: 'ALL',
    });
  expect(res.status).toBe(201);
  expect((await harness.http.post(`/campaigns/${res.body.data.id}/send`).set(key(fx)).send({})).status).toBe(200);
  return res.body.data.id;
}

const campaignRow = (id: string) => h.deps.knex('campaigns').where({ id }).first();
const waitSent = (id: string) => eventually(async () => ((await campaignRow(id)).status === 'SENT' ? campaignRow(id) : null), 180_000, 250);

function arrivals(emails: string[]): Map<string, SinkMail[]> {
  const wanted = new Set(emails);
  const got = new Map<string, SinkMail[]>();
  for (const m of sink.mails) for (const t of m.to) if (wanted.has(t)) got.set(t, [...(got.get(t) ?? []), m]);
  return got;
}

describe('campaigns over SMTP', () => {
  it('delivers a 2,000-recipient campaign exactly once per recipient, with the worker stopped and restarted mid-send', async () => {
    const { fx, emails, domain } = await campaignProject(2000);
    // Small batches, slow answers: many hand-overs in flight when the worker stops.
    const small = await startHarness({
      worker: true,
      env: { EMAIL_TRANSPORT: 'smtp', SMTP_URL: sink.url, SEND_RATE_PER_SECOND: '100000', CAMPAIGN_BATCH_SIZE: '200' },
    });
    try {
      sink.delay(5);
      const id = await sendCampaign(fx, domain, small);
      await eventually(async () => arrivals(emails).size >= 500, 120_000, 50);
      await small.stopWorker();
      const stopped = await campaignRow(id);
      expect(stopped.status).toBe('SENDING');
      expect(arrivals(emails).size).toBeLessThan(2000);
      sink.delay(0);
      await small.startWorker();
      const row = await waitSent(id);

      const got = arrivals(emails);
      for (const [, mails] of got) expect(mails).toHaveLength(1);
      const rows = await h.deps.knex('emails').where({ campaign_id: id }).select('to_email', 'status', 'error');
      expect(rows).toHaveLength(2000);
      const unknown = rows.filter((r) => r.status === 'FAILED');
      // A recipient that did not arrive can only be one whose hand-over was cut mid-flight.
      for (const r of unknown) expect(r.error).toBe(UNKNOWN);
      for (const e of emails) if (!got.has(e)) expect(unknown.map((r) => r.to_email)).toContain(e);
      expect(got.size + unknown.filter((r) => !got.has(r.to_email)).length).toBe(2000);
      expect(rows.filter((r) => r.status === 'SENT').length).toBe(row.sent_count);
      expect(row.sent_count + row.failed_count).toBe(2000);

      // Each arrival is signed with the campaign project's own key.
      const [sig] = await dkimOf(got.get(emails[0])![0].raw, fx);
      expect(sig).toMatchObject({ signingDomain: domain, status: { result: 'pass' } });
    } finally {
      sink.delay(0);
      await small.stop();
    }
  }, 240_000);

  it("records each recipient's own outcome: a 550 at DATA is FAILED and a bounce, a 451 is retried and delivered, the rest are sent", async () => {
    const { fx, emails, domain } = await campaignProject(5);
    const [refused, deferred] = emails;
    sink.refuse(refused, { at: 'DATA', code: 550 });
    sink.refuse(deferred, { at: 'RCPT', code: 451, times: 1 });
    const id = await sendCampaign(fx, domain);
    const row = await waitSent(id);

    const got = arrivals(emails);
    expect(got.has(refused)).toBe(false);
    for (const e of emails.slice(1)) expect(got.get(e)).toHaveLength(1);
    expect(sink.refusals(deferred)).toBe(1);
    expect(row).toMatchObject({ sent_count: 4, failed_count: 1, bounced_count: 1 });
    const bouncedRow = await h.deps.knex('emails').where({ campaign_id: id, to_email: refused }).first();
    expect(bouncedRow.status).toBe('BOUNCED');
    expect(bouncedRow.error).toMatch(/^SMTP server answered 550 /);
    expect((await h.deps.knex('contacts').where({ project_id: fx.projectId, email: refused }).first()).subscribed).toBe(false);
    expect((await h.deps.knex('contacts').where({ project_id: fx.projectId, email: deferred }).first()).subscribed).toBe(true);
    // Every accepted recipient has its own message id.
    const ids = await h.deps.knex('emails').where({ campaign_id: id, status: 'SENT' }).pluck('provider_message_id');
    expect(new Set(ids).size).toBe(4);
  });
});
