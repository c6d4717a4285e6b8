import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import nodemailer from 'nodemailer';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { startDnsServer, TestDnsServer } from '../helpers/dnsServer';
import { workflowApi } from '../helpers/workflows';
import { smtpDialog } from '../helpers/smtpDialog';
import { arf, dsn, qmailBounce, reply } from '../helpers/inboundMail';
import { startInboundServer, InboundServer } from '../../inbound/server';
import { verpReturnPath } from '../../lib/verp';
import { createEventHandOff, startEventRouting } from '../../services/events';
import { createKnex } from '../../db/knex';
import { freePortRange } from '../../scripts/temporalServer';
import { scriptCommand } from '../../scripts/cluster';

/**
 * The inbound SMTP server end to end: real SMTP (nodemailer's client and raw sockets) to the real
 * server, real Postgres, the real worker routing what it records.
 */

let h: Harness;
let p: ProjectFixture;
let dns: TestDnsServer;
let server: InboundServer;
const DOMAIN = `shop-${crypto.randomBytes(4).toString('hex')}.example.com`;

beforeAll(async () => {
  dns = await startDnsServer();
  h = await startHarness({ worker: true, env: { DNS_SERVERS: dns.address } });
  p = await createProjectFixture(h, 'Inbound');
  await verifiedDomain(h, p.projectId, DOMAIN);
  server = await startInboundServer(h.deps, { port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await server?.close();
  await h?.stop();
  await dns?.stop();
});

const knex = () => h.deps.knex;

/** One message over a fresh SMTP connection; rejects with nodemailer's error (responseCode, command). */
async function smtpSend(envelope: { from: string; to: string[] }, raw: Buffer, port = server.port) {
  const t = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
  try {
    return await t.sendMail({ envelope, raw });
  } finally {
    t.close();
  }
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('accepted');
    },
    (err) => err as { responseCode: number; command: string; response: string },
  );

/** A sent email (the log transport) to a subscribed contact. */
async function sentEmail(to = uniqueEmail('reader')): Promise<{ emailId: string; contactId: string; to: string }> {
  const res = await h.http
    .post('/v1/send')
    .set(bearer(p.secretKey))
    .send({ to, from: `hello@${DOMAIN}`, subject: 'Hello', body: '<p>Hello</p>', subscribed: true });
  expect(res.status).toBe(200);
  const emailId = res.body.data.emails[0].email as string;
  await eventually(async () => (await knex()('emails').where({ id: emailId }).first())?.status === 'SENT');
  return { emailId, contactId: res.body.data.emails[0].contact.id, to };
}

const returnPath = (emailId: string) => verpReturnPath(h.config.jwtSecret, emailId, `bounces.${DOMAIN}`);
const emailRow = (id: string) => knex()('emails').where({ id }).first();
const eventsOf = (contactId: string, name: string) => knex()('events').where({ contact_id: contactId, name }).orderBy('created_at');
const inboundRows = () => knex()('inbound_messages').where({ project_id: p.projectId });
const suppression = (email: string) => knex()('suppressions').where({ project_id: p.projectId, email: email.toLowerCase() }).first();

describe('inbound SMTP: what it refuses', () => {
  it('refuses at RCPT, with 550 5.1.1, an address it does not own: another domain, a forged return path, an unverified inbound domain', async () => {
    const before = (await inboundRows()).length;
    const { emailId } = await sentEmail();
    const forged = returnPath(emailId).replace(/[0-9a-f](?=@)/, (c) => (c === '0' ? '1' : '0'));
    for (const to of ['someone@example.org', forged, `support@inbound.not-verified-${Date.now()}.example`, `support@${DOMAIN}`]) {
      const err = await refusal(smtpSend({ from: 'a@example.org', to: [to] }, reply({ from: 'a@example.org', to })));
      expect(err.responseCode).toBe(550);
      expect(err.command).toBe('RCPT TO');
      expect(err.response).toMatch(/5\.1\.1/);
    }
    expect((await inboundRows()).length).toBe(before);
  });

  it('refuses a message over INBOUND_MAX_BYTES with 552 at DATA and stores nothing', async () => {
    const small = await startInboundServer(
      { ...h.deps, config: { ...h.config, inbound: { ...h.config.inbound, maxBytes: 4096 } } },
      { port: 0, host: '127.0.0.1' },
    );
    try {
      const before = (await inboundRows()).length;
      const to = `support@inbound.${DOMAIN}`;
      const session = await smtpDialog(small.port);
      expect((await session.command('EHLO client.example')).startsWith('250')).toBe(true);
      expect(await session.command('MAIL FROM:<a@example.org>')).toMatch(/^250/);
      expect(await session.command(`RCPT TO:<${to}>`)).toMatch(/^250/);
      const answer = await session.data(reply({ from: 'a@example.org', to, text: 'x'.repeat(8000) }).toString());
      expect(answer).toMatch(/^552 5\.3\.4/);
      session.close();
      expect((await inboundRows()).length).toBe(before);
    } finally {
      await small.close();
    }
  });

  it('answers 550 to a malformed message and stores nothing', async () => {
    const before = (await inboundRows()).length;
    const to = `support@inbound.${DOMAIN}`;
    const err = await refusal(smtpSend({ from: 'a@example.org', to: [to] }, Buffer.from('this is not a mail message\r\nat all\r\n')));
    expect(err.responseCode).toBe(550);
    expect(err.response).toMatch(/5\.6\.0 malformed/);
    const noFrom = await refusal(smtpSend({ from: 'a@example.org', to: [to] }, Buffer.from('Subject: who sent this?\r\n\r\nbody\r\n')));
    expect(noFrom.responseCode).toBe(550);
    expect((await inboundRows()).length).toBe(before);
  });

  it('limits recipients per message, messages per connection and connections per address', async () => {
    const limited = await startInboundServer(h.deps, {
      port: 0,
      host: '127.0.0.1',
      limits: { connectionsPerIp: 1, messagesPerConnection: 1, recipientsPerMessage: 2 },
    });
    try {
      const session = await smtpDialog(limited.port);
      expect(session.greeting).toMatch(/^220/);
      // A second connection from the same address while the first is open.
      const second = await smtpDialog(limited.port);
      expect(second.greeting).toMatch(/^421 4\.7\.0/);
      second.close();

      await session.command('EHLO client.example');
      await session.command('MAIL FROM:<a@example.org>');
      expect(await session.command(`RCPT TO:<a@inbound.${DOMAIN}>`)).toMatch(/^250/);
      expect(await session.command(`RCPT TO:<b@inbound.${DOMAIN}>`)).toMatch(/^250/);
      expect(await session.command(`RCPT TO:<c@inbound.${DOMAIN}>`)).toMatch(/^452 4\.5\.3/);
      expect(await session.data(reply({ from: uniqueEmail('limits'), to: `a@inbound.${DOMAIN}` }).toString())).toMatch(/^250/);
      expect(await session.command('MAIL FROM:<a@example.org>')).toMatch(/^421 4\.7\.0/);
      session.close();
      // Closed connections give their places back, the refused one included: the address is not locked out.
      const again = await eventually(async () => {
        const d = await smtpDialog(limited.port);
        if (d.greeting.startsWith('220')) return d;
        d.close();
        return null;
      }, 10_000);
      again.close();
    } finally {
      await limited.close();
    }
  });

  it('answers 451 (try again) when it cannot look a recipient up, never 250 or 550', async () => {
    const down = createKnex('postgres://postgres@127.0.0.1:1/nowhere', { max: 1 });
    const broken = await startInboundServer({ ...h.deps, knex: down }, { port: 0, host: '127.0.0.1' });
    try {
      const err = await refusal(
        smtpSend({ from: 'a@example.org', to: [`support@inbound.${DOMAIN}`] }, reply({ from: 'a@example.org', to: `support@inbound.${DOMAIN}` }), broken.port),
      );
      expect(err.responseCode).toBe(451);
    } finally {
      await broken.close();
      await down.destroy();
    }
  });

  it('offers STARTTLS when INBOUND_TLS_CERT and INBOUND_TLS_KEY are set, and takes mail over it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inbound-tls-'));
    const [keyFile, certFile] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')];
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '2', '-subj', '/CN=localhost'], {
      stdio: 'pipe',
    });
    const tls = await startInboundServer(
      { ...h.deps, config: { ...h.config, inbound: { ...h.config.inbound, tls: { certFile, keyFile } } } },
      { port: 0, host: '127.0.0.1' },
    );
    try {
      const session = await smtpDialog(tls.port);
      expect(await session.command('EHLO client.example')).toMatch(/STARTTLS/);
      session.close();
      const plain = await smtpDialog(server.port);
      expect(await plain.command('EHLO client.example')).not.toMatch(/STARTTLS/);
      plain.close();
      const sender = uniqueEmail('tls');
      const t = nodemailer.createTransport({ host: '127.0.0.1', port: tls.port, secure: false, requireTLS: true, tls: { rejectUnauthorized: false } });
      const info = await t.sendMail({ envelope: { from: sender, to: [`tls@inbound.${DOMAIN}`] }, raw: reply({ from: sender, to: `tls@inbound.${DOMAIN}` }) });
      t.close();
      expect(info.response).toMatch(/^250/);
    } finally {
      await tls.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('inbound SMTP: bounces and complaints (VERP)', () => {
  it('a hard DSN (5.x.x) bounces the email, suppresses the address, unsubscribes the contact and keeps the diagnostic; a repeat counts once', async () => {
    const { emailId, contactId, to } = await sentEmail();
    const raw = dsn({ to: returnPath(emailId), recipient: to, status: '5.1.1', messageId: `dsn-${emailId}@mx.example.org` });
    const info = await smtpSend({ from: '', to: [returnPath(emailId)] }, raw);
    expect(info.response).toMatch(/^250/);

    // Committed before the 250: nothing to wait for.
    expect((await emailRow(emailId)).status).toBe('BOUNCED');
    expect(await suppression(to)).toMatchObject({ reason: 'HARD_BOUNCE', email_id: emailId });
    expect((await knex()('contacts').where({ id: contactId }).first()).subscribed).toBe(false);
    const [bounced] = await eventsOf(contactId, 'email.bounced');
    expect(bounced.data).toMatchObject({ emailId, provider: 'smtp', reason: expect.stringContaining('550 5.1.1') });
    const row = await knex()('inbound_messages').where({ email_id: emailId }).first();
    expect(row).toMatchObject({ kind: 'HARD_BOUNCE', status: '5.1.1', contact_id: contactId, mail_from: null });

    // The reporting server sends the same report again (our 250 was lost on its way).
    await smtpSend({ from: '', to: [returnPath(emailId)] }, raw);
    expect(await eventsOf(contactId, 'email.bounced')).toHaveLength(1);
    // GET /emails/:id tells the bounce with its diagnostic.
    const story = await h.http.get(`/emails/${emailId}`).set(bearer(p.secretKey));
    expect(story.body.events.find((e: any) => e.type === 'bounced').data.reason).toMatch(/5\.1\.1/);
  });

  it('a soft DSN (4.x.x) is recorded but neither suppresses nor unsubscribes', async () => {
    const { emailId, contactId, to } = await sentEmail();
    await smtpSend(
      { from: '', to: [returnPath(emailId)] },
      dsn({ to: returnPath(emailId), recipient: to, status: '4.2.2', diagnostic: 'smtp; 452 4.2.2 Mailbox full' }),
    );
    expect(await knex()('inbound_messages').where({ email_id: emailId }).first()).toMatchObject({
      kind: 'SOFT_BOUNCE',
      status: '4.2.2',
      diagnostic: 'smtp; 452 4.2.2 Mailbox full',
    });
    expect(await suppression(to)).toBeUndefined();
    expect((await knex()('contacts').where({ id: contactId }).first()).subscribed).toBe(true);
    const [bounced] = await eventsOf(contactId, 'email.bounced');
    expect(bounced.data).toMatchObject({ emailId, soft: true, reason: 'smtp; 452 4.2.2 Mailbox full' });
  });

  it('a plain-text bounce without a report part (qmail) is read by its code', async () => {
    const { emailId, to } = await sentEmail();
    await smtpSend({ from: '', to: [returnPath(emailId)] }, qmailBounce({ to: returnPath(emailId), recipient: to }));
    expect((await emailRow(emailId)).status).toBe('BOUNCED');
    expect(await suppression(to)).toMatchObject({ reason: 'HARD_BOUNCE' });
  });

  it("an ARF abuse report to an inbound address (a feedback loop's registered one) complains about the email it quotes", async () => {
    const { emailId, contactId, to } = await sentEmail();
    const fbl = `fbl@inbound.${DOMAIN}`;
    await smtpSend({ from: 'fbl@isp.example', to: [fbl] }, arf({ to: fbl, recipient: to, originalMessageId: `${emailId}@${DOMAIN}` }));
    expect((await emailRow(emailId)).status).toBe('COMPLAINED');
    expect(await suppression(to)).toMatchObject({ reason: 'COMPLAINT' });
    expect(await eventsOf(contactId, 'email.complained')).toHaveLength(1);
    expect(await knex()('inbound_messages').where({ email_id: emailId }).first()).toMatchObject({ kind: 'COMPLAINT' });
    // The loop's own address is not a person writing to the project.
    expect(await knex()('contacts').where({ project_id: p.projectId, email: 'fbl@isp.example' }).first()).toBeUndefined();
  });

  it('an ARF abuse report is a complaint: COMPLAINED, suppressed, unsubscribed, email.complained', async () => {
    const { emailId, contactId, to } = await sentEmail();
    await smtpSend({ from: 'fbl@isp.example', to: [returnPath(emailId)] }, arf({ to: returnPath(emailId), recipient: to }));
    expect((await emailRow(emailId)).status).toBe('COMPLAINED');
    expect(await suppression(to)).toMatchObject({ reason: 'COMPLAINT' });
    expect((await knex()('contacts').where({ id: contactId }).first()).subscribed).toBe(false);
    expect(await eventsOf(contactId, 'email.complained')).toHaveLength(1);
    expect((await emailRow(emailId)).complained_at).not.toBeNull();
  });
});

describe('inbound SMTP: mail to a project and replies', () => {
  it('a reply fires email.received and email.replied, shows on GET /emails/:id and in the activity feed, and releases a waiting execution', async () => {
    const api = workflowApi(h, p);
    const asked = `asked-${Date.now()}`;
    const wf = await api.build(
      asked,
      {
        wait: { type: 'WAIT_FOR_EVENT', config: { eventName: 'email.replied', timeout: { amount: 6, unit: 'days' } } },
        mark: { type: 'UPDATE_CONTACT', config: { data: { answered: true } } },
        exit: { type: 'EXIT' },
      },
      [
        ['trigger', 'wait'],
        ['wait', 'mark', 'next'],
        ['wait', 'exit', 'timeout'],
      ],
      { enabled: true },
    );
    const { emailId, contactId, to } = await sentEmail();
    await api.track(to, asked);
    const execution = await api.executionOf(wf.id, contactId);
    await api.until(wf.id, execution.id, ['WAITING']);

    const inboundTo = `support@inbound.${DOMAIN}`;
    const info = await smtpSend(
      { from: to, to: [inboundTo] },
      reply({ from: to, to: inboundTo, inReplyTo: `${emailId}@${DOMAIN}`, references: [`${emailId}@${DOMAIN}`], text: 'Yes please!', attachment: true }),
    );
    expect(info.response).toMatch(/^250/);

    const [received] = await eventsOf(contactId, 'email.received');
    expect(received.data).toMatchObject({
      to: [inboundTo],
      from: to,
      subject: 'Re: Hello',
      text: expect.stringContaining('Yes please!'),
      inReplyTo: `${emailId}@${DOMAIN}`,
      attachments: [{ filename: 'invoice.pdf', contentType: 'application/pdf', size: 13 }],
      auth: { spf: expect.any(String), dkim: expect.any(String), dmarc: expect.any(String) },
    });
    const [replied] = await eventsOf(contactId, 'email.replied');
    expect(replied.data).toMatchObject({ emailId, inboundId: received.data.inboundId });

    const done = await api.until(wf.id, execution.id, ['COMPLETED', 'EXITED', 'FAILED']);
    expect(done.status).toBe('COMPLETED');
    expect(done.steps.map((s: any) => s.type)).toEqual(['TRIGGER', 'WAIT_FOR_EVENT', 'UPDATE_CONTACT']);

    const story = await h.http.get(`/emails/${emailId}`).set(bearer(p.secretKey));
    expect(story.body.events.map((e: any) => e.type)).toContain('replied');

    const feed = await h.http.get('/activity').query({ type: 'inbound' }).set(bearer(p.secretKey));
    expect(feed.status).toBe(200);
    expect(feed.body.data.some((i: any) => i.type === 'inbound' && i.contact?.id === contactId)).toBe(true);

    // The raw message, for the secret key of this project only.
    const raw = await h.http.get(`/inbound/${received.data.inboundId}`).set(bearer(p.secretKey));
    expect(raw.status).toBe(200);
    expect(raw.body).toMatchObject({ id: received.data.inboundId, kind: 'MESSAGE', emailId, from: to, raw: expect.stringContaining('Yes please!') });
    // The dashboard's Inbound screen shows the contact it matched and its parsed headers, in order and unfolded.
    expect(raw.body).toMatchObject({ contactId, contactEmail: to });
    const header = (name: string) => raw.body.headers.find((f: { name: string }) => f.name.toLowerCase() === name)?.value;
    expect(header('subject')).toBe('Re: Hello');
    expect(header('in-reply-to')).toBe(`<${emailId}@${DOMAIN}>`);
    const listed = (await h.http.get('/inbound').query({ kind: 'MESSAGE' }).set(bearer(p.secretKey))).body.data;
    expect(listed.find((m: { id: string }) => m.id === received.data.inboundId)).toMatchObject({ contactId, contactEmail: to });
    const other = await createProjectFixture(h, 'Other');
    expect((await h.http.get(`/inbound/${received.data.inboundId}`).set(bearer(other.secretKey))).status).toBe(404);
    expect((await h.http.get(`/inbound/${received.data.inboundId}`).set(bearer(p.publicKey))).status).toBe(401);
  });

  it('mail from a stranger creates the contact unsubscribed; a message naming no email of ours fires no email.replied', async () => {
    const stranger = uniqueEmail('stranger');
    await smtpSend(
      { from: stranger, to: [`hello@inbound.${DOMAIN}`] },
      reply({ from: stranger, to: `hello@inbound.${DOMAIN}`, subject: 'Question', inReplyTo: `${crypto.randomUUID()}@${DOMAIN}` }),
    );
    const contact = await knex()('contacts').where({ project_id: p.projectId, email: stranger }).first();
    expect(contact.subscribed).toBe(false);
    expect(await eventsOf(contact.id, 'email.received')).toHaveLength(1);
    expect(await eventsOf(contact.id, 'email.replied')).toHaveLength(0);
  });

  it('a message whose DMARC fails is recorded but fires no event and creates no contact; one that passes says so', async () => {
    const spoofed = `spoof-${crypto.randomBytes(3).toString('hex')}.example`;
    dns.set(spoofed, 'TXT', ['v=spf1 ip4:192.0.2.1 -all']);
    dns.set(`_dmarc.${spoofed}`, 'TXT', ['v=DMARC1; p=reject']);
    const ceo = `ceo@${spoofed}`;
    await smtpSend({ from: ceo, to: [`billing@inbound.${DOMAIN}`] }, reply({ from: ceo, to: `billing@inbound.${DOMAIN}`, subject: 'Wire the money' }));
    const row = await knex()('inbound_messages').where({ project_id: p.projectId, from_address: ceo }).first();
    expect(row).toMatchObject({ kind: 'DMARC_FAILED', contact_id: null });
    expect(row.auth).toMatchObject({ spf: 'fail', dmarc: 'fail' });
    expect(await knex()('contacts').where({ project_id: p.projectId, email: ceo }).first()).toBeUndefined();

    const good = `good-${crypto.randomBytes(3).toString('hex')}.example`;
    dns.set(good, 'TXT', ['v=spf1 ip4:127.0.0.1 -all']);
    dns.set(`_dmarc.${good}`, 'TXT', ['v=DMARC1; p=reject']);
    const friend = `friend@${good}`;
    await smtpSend({ from: friend, to: [`billing@inbound.${DOMAIN}`] }, reply({ from: friend, to: `billing@inbound.${DOMAIN}`, subject: 'Hello' }));
    const contact = await knex()('contacts').where({ project_id: p.projectId, email: friend }).first();
    const [received] = await eventsOf(contact.id, 'email.received');
    expect(received.data.auth).toEqual({ spf: 'pass', dkim: 'none', dmarc: 'pass' });
  });

  it('takes mail for a subdomain of a verified domain, and tells each project only its own recipients', async () => {
    const other = await createProjectFixture(h, 'Other inbound');
    const otherDomain = `other-${crypto.randomBytes(4).toString('hex')}.example.com`;
    await verifiedDomain(h, other.projectId, otherDomain);
    const sender = uniqueEmail('both');
    const [mine, theirs] = [`desk@inbound.mail.${DOMAIN}`, `desk@inbound.${otherDomain}`];
    const info = await smtpSend({ from: sender, to: [mine, theirs] }, reply({ from: sender, to: `${mine}, ${theirs}` }));
    expect(info.accepted).toEqual([mine, theirs]);
    const rows = await knex()('inbound_messages').where({ from_address: sender }).orderBy('project_id');
    expect(rows.map((r: any) => [r.project_id, r.rcpt_to]).sort()).toEqual(
      [
        [p.projectId, [mine]],
        [other.projectId, [theirs]],
      ].sort(),
    );
  });

  it('does not link a reply to an email of another project', async () => {
    const other = await createProjectFixture(h, 'Other sender');
    const otherDomain = `else-${crypto.randomBytes(4).toString('hex')}.example.com`;
    await verifiedDomain(h, other.projectId, otherDomain);
    const sent = await h.http
      .post('/v1/send')
      .set(bearer(other.secretKey))
      .send({ to: uniqueEmail('theirs'), from: `hi@${otherDomain}`, subject: 'Theirs', body: '<p>x</p>' });
    const theirEmail = sent.body.data.emails[0].email as string;
    const sender = uniqueEmail('crossing');
    await smtpSend(
      { from: sender, to: [`support@inbound.${DOMAIN}`] },
      reply({ from: sender, to: `support@inbound.${DOMAIN}`, inReplyTo: `${theirEmail}@${otherDomain}` }),
    );
    const row = await knex()('inbound_messages').where({ from_address: sender }).first();
    expect(row).toMatchObject({ project_id: p.projectId, kind: 'MESSAGE', email_id: null });
    expect(await knex()('events').where({ name: 'email.replied' }).whereRaw("data->>'emailId' = ?", [theirEmail])).toHaveLength(0);
  });

  it('stores hostile mail it accepted and serves it back without a 5xx: NUL bytes, broken encodings', async () => {
    const sender = uniqueEmail('hostile');
    const raw = Buffer.concat([
      Buffer.from(
        `From: =?utf-8?B?AA==?= <${sender}>\r\nTo: x@inbound.${DOMAIN}\r\nSubject: =?utf-8?Q?nul=00here?= =?x-bogus?B?////?=\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=X\r\n\r\n`,
      ),
      Buffer.from('--X\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nbad =00 nul =ZZ\r\n'),
      Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28]),
      Buffer.from('\r\n--X\r\nContent-Type: application/octet-stream; name="=?utf-8?Q?a=00b?="\r\n\r\n\u0000\u0001\r\n--X--\r\n'),
    ]);
    const info = await smtpSend({ from: sender, to: [`x@inbound.${DOMAIN}`] }, raw);
    expect(info.response).toMatch(/^250/);
    const row = await knex()('inbound_messages').where({ project_id: p.projectId, from_address: sender }).first();
    const one = await h.http.get(`/inbound/${row.id}`).set(bearer(p.secretKey));
    expect(one.status).toBe(200);
    expect(one.body.subject).toContain('here');
    const list = await h.http.get('/inbound').set(bearer(p.secretKey));
    expect(list.status).toBe(200);
    expect(list.body.data.find((m: any) => m.id === row.id)).toMatchObject({ kind: 'MESSAGE', from: sender });
    expect(list.body.data[0].raw).toBeUndefined();
  });

  it('what it answered 250 for is committed: when the process dies before handing over, the sweep still routes the events', async () => {
    const api = workflowApi(h, p);
    const asked = `asked-crash-${Date.now()}`;
    const wf = await api.build(
      asked,
      { wait: { type: 'WAIT_FOR_EVENT', config: { eventName: 'email.replied', timeout: { amount: 6, unit: 'days' } } } },
      [['trigger', 'wait']],
      { enabled: true },
    );
    const { emailId, contactId, to } = await sentEmail();
    await api.track(to, asked);
    const execution = await api.executionOf(wf.id, contactId);
    await api.until(wf.id, execution.id, ['WAITING']);

    // A server that answers and then never reaches Temporal: the hand-over after the 250 is what a SIGKILL cuts off.
    const dead = { ...h.deps.temporal, client: () => Promise.reject(new Error('process killed')) };
    const dying = await startInboundServer(
      { ...h.deps, temporal: dead, runtime: { events: createEventHandOff({ temporal: dead, knex: h.deps.knex, log: h.deps.log }) } },
      { port: 0, host: '127.0.0.1' },
    );
    try {
      const info = await smtpSend(
        { from: to, to: [`support@inbound.${DOMAIN}`] },
        reply({ from: to, to: `support@inbound.${DOMAIN}`, inReplyTo: `${emailId}@${DOMAIN}` }),
        dying.port,
      );
      expect(info.response).toMatch(/^250/);
    } finally {
      await dying.close();
    }
    const left = await knex()('events').where({ contact_id: contactId }).whereIn('name', ['email.received', 'email.replied']).whereNull('routed_at');
    expect(left.map((e: any) => e.name).sort()).toEqual(['email.received', 'email.replied']);
    // What the maintenance sweep does with events left unrouted (activities/maintenance.ts resumeOrphans).
    await startEventRouting(h.deps.temporal, left);
    const done = await api.until(wf.id, execution.id, ['COMPLETED', 'EXITED', 'FAILED']);
    expect(done.status).toBe('COMPLETED');
  });

  it('SIGKILL of the inbound process right after its 250 loses nothing: the reply still releases the waiting execution', async () => {
    const api = workflowApi(h, p);
    const asked = `asked-kill-${Date.now()}`;
    const wf = await api.build(
      asked,
      { wait: { type: 'WAIT_FOR_EVENT', config: { eventName: 'email.replied', timeout: { amount: 6, unit: 'days' } } } },
      [['trigger', 'wait']],
      { enabled: true },
    );
    const { emailId, contactId, to } = await sentEmail();
    await api.track(to, asked);
    const execution = await api.executionOf(wf.id, contactId);
    await api.until(wf.id, execution.id, ['WAITING']);

    // `npm run inbound` as its own process, on this file's task queue.
    const port = await freePortRange(1);
    const { command, args } = scriptCommand('inbound');
    const child = spawn(command, args, {
      cwd: path.resolve(__dirname, '../..'),
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS,
        TEMPORAL_TASK_QUEUE: h.taskQueue,
        INBOUND_SMTP_PORT: String(port),
        INBOUND_SMTP_HOST: '127.0.0.1',
        DNS_SERVERS: dns.address,
      },
      stdio: 'ignore',
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      const session = await eventually(() => smtpDialog(port).catch(() => null), 60_000, 250);
      await session.command('EHLO client.example');
      await session.command(`MAIL FROM:<${to}>`);
      await session.command(`RCPT TO:<support@inbound.${DOMAIN}>`);
      const answer = await session.data(reply({ from: to, to: `support@inbound.${DOMAIN}`, inReplyTo: `${emailId}@${DOMAIN}` }).toString());
      child.kill('SIGKILL');
      expect(answer).toMatch(/^250/);
      session.close();
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    const events = await knex()('events').where({ contact_id: contactId }).whereIn('name', ['email.received', 'email.replied']);
    expect(events.map((e: any) => e.name).sort()).toEqual(['email.received', 'email.replied']);
    // Whatever the killed process did not hand over, the maintenance sweep does (resumeOrphans routes unrouted events).
    await startEventRouting(
      h.deps.temporal,
      events.filter((e: any) => e.routed_at === null),
    );
    const done = await api.until(wf.id, execution.id, ['COMPLETED', 'EXITED', 'FAILED']);
    expect(done.status).toBe('COMPLETED');
  });
});
