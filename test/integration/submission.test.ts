import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { startSmtpSink, SmtpSink } from '../helpers/smtpSink';
import { smtpDialog } from '../helpers/smtpDialog';
import { startSubmissionServer, SubmissionServer, SubmissionDeps } from '../../submission/server';
import { submissionTls, TlsPair } from '../../submission/tls';
import { createKnex } from '../../db/knex';
import { deliverEmailBatchWorkflowId } from '../../temporal/workflows/deliverEmailBatch/start';
import type { DeliveryBatcher } from '../../services/deliveryBatcher';

/**
 * The SMTP submission server end to end: nodemailer and Debian's swaks submit over STARTTLS (587)
 * and implicit TLS (465) to the real server, which takes /v1/send's path into real Postgres; the
 * real worker delivers to a local relay (test/helpers/smtpSink.ts).
 */

let h: Harness;
let p: ProjectFixture;
let sink: SmtpSink;
let server: SubmissionServer;
let tls: TlsPair;
let dataDir: string;
const DOMAIN = `shop-${crypto.randomBytes(4).toString('hex')}.example.com`;
const FROM = `hello@${DOMAIN}`;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'submission-test-'));
  sink = await startSmtpSink();
  h = await startHarness({ worker: true, env: { EMAIL_TRANSPORT: 'smtp', SMTP_URL: sink.url, DATA_DIR: dataDir } });
  p = await createProjectFixture(h, 'Submission');
  await verifiedDomain(h, p.projectId, DOMAIN);
  // No SUBMISSION_TLS_CERT/KEY: the development pair is generated under DATA_DIR.
  tls = await submissionTls(h.config);
  server = await start();
});

afterAll(async () => {
  await server?.close();
  await h?.stop();
  await sink?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const knex = () => h.deps.knex;

async function start(deps: Partial<SubmissionDeps> = {}, config: Partial<Harness['config']> = {}) {
  return startSubmissionServer({ ...h.deps, ...deps, config: { ...h.config, ...config } }, { port: 0, tlsPort: 0, host: '127.0.0.1', tls });
}

type Submit = { port?: number; secure?: boolean; pass?: string } & SendMailOptions;

/** One message over a fresh connection; STARTTLS is required, the self-signed certificate trusted by its fingerprint-free test mode. */
async function submit({ port = server.port, secure = false, pass = p.secretKey, ...mail }: Submit) {
  const t = nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure,
    requireTLS: !secure,
    tls: { rejectUnauthorized: false },
    auth: { user: 'wordpress', pass },
  });
  try {
    return await t.sendMail({ from: `Shop <${FROM}>`, subject: 'Receipt', text: 'Thanks for your order.', ...mail });
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

/** swaks, run without blocking this process (the server under test lives in it). */
function swaks(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile('/usr/bin/swaks', ['--server', '127.0.0.1', '--auth-user', 'anyone', '--auth-password', p.secretKey, ...args], (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    );
  });
}

const delivered = (to: string) => eventually(async () => (sink.mailsTo(to).length ? sink.mailsTo(to) : null));
const emailsTo = (to: string) => knex()('emails').where({ project_id: p.projectId, to_email: to.toLowerCase() });

describe('SMTP submission: mail it accepts', () => {
  it('nodemailer over STARTTLS: To, Cc and Bcc recipients each get the message once, with its text part, HTML part, attachment, subject, From name and Reply-To', async () => {
    const [to, cc, bcc] = [uniqueEmail('to'), uniqueEmail('cc'), uniqueEmail('bcc')];
    const info = await submit({
      to: `Reader <${to}>`,
      cc,
      bcc,
      replyTo: `support@${DOMAIN}`,
      subject: 'Your receipt {{ not liquid }}',
      text: 'Thanks for your order.',
      html: '<p>Thanks for your <b>order</b>.</p>',
      attachments: [{ filename: 'receipt.csv', content: 'item,price\nbook,12\n', contentType: 'text/csv' }],
      headers: { 'X-Order': '42', Sender: 'evil@elsewhere.example' },
    });
    expect(info.response).toMatch(/^250 2\.0\.0 accepted as /);
    expect(info.accepted.sort()).toEqual([to, cc, bcc].sort());
    for (const address of [to, cc, bcc]) {
      const [mail, ...more] = await delivered(address);
      expect(more).toEqual([]);
      // Each recipient on its own envelope, as /v1/send delivers.
      expect(mail.to).toEqual([address]);
      const parsed = await sink.parse(mail);
      expect(parsed.subject).toBe('Your receipt {{ not liquid }}');
      expect(parsed.from?.value[0]).toMatchObject({ address: FROM, name: 'Shop' });
      expect(parsed.replyTo?.value[0].address).toBe(`support@${DOMAIN}`);
      expect(parsed.text?.trim()).toBe('Thanks for your order.');
      expect(parsed.html).toContain('<b>order</b>');
      expect(parsed.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([['receipt.csv', 'item,price\nbook,12\n']]);
      expect(parsed.headers.get('x-order')).toBe('42');
      // Hidden and address headers never come through: the envelope decided the recipients.
      expect(parsed.headers.get('bcc')).toBeUndefined();
      expect(parsed.headers.get('sender')).toBeUndefined();
    }
    expect(await emailsTo(to)).toHaveLength(1);
    expect((await emailsTo(to))[0].to_name).toBe('Reader');
  });

  it('nodemailer over implicit TLS (the 465 listener)', async () => {
    const to = uniqueEmail('tls');
    await submit({ port: server.tlsPort, secure: true, to });
    const [mail] = await delivered(to);
    expect((await sink.parse(mail)).text?.trim()).toBe('Thanks for your order.');
  });

  it('swaks over STARTTLS and over implicit TLS, with an attachment', async () => {
    const file = path.join(dataDir, 'invoice.txt');
    fs.writeFileSync(file, 'invoice 7\n');
    const [a, b] = [uniqueEmail('swaks'), uniqueEmail('swaks-tls')];
    const common = ['--from', FROM, '--header', 'Subject: From swaks', '--body', 'Plain body from swaks', '--attach', `@${file}`];
    const starttls = await swaks(['--port', String(server.port), '-tls', '--auth', 'PLAIN', '--to', a, ...common]);
    expect(starttls.out).toMatch(/<~ {2}250 2\.0\.0 accepted as/);
    expect(starttls.code).toBe(0);
    const implicit = await swaks(['--port', String(server.tlsPort), '--tls-on-connect', '--auth', 'LOGIN', '--to', b, ...common]);
    expect(implicit.code).toBe(0);
    for (const to of [a, b]) {
      const [mail] = await delivered(to);
      const parsed = await sink.parse(mail);
      expect(parsed.subject).toBe('From swaks');
      expect(parsed.text).toContain('Plain body from swaks');
      expect(parsed.attachments.map((x) => [x.filename, x.content.toString()])).toEqual([['invoice.txt', 'invoice 7\n']]);
    }
  });

  it('takes the Message-ID as the idempotency key: the same message twice is answered 250 twice and sent once', async () => {
    const to = uniqueEmail('retry');
    const messageId = `<${crypto.randomUUID()}@app.example>`;
    const first = await submit({ to, messageId });
    const again = await submit({ to, messageId });
    expect(first.response).toMatch(/^250 2\.0\.0 accepted as /);
    expect(again.response).toMatch(/^250 2\.0\.0 already accepted/);
    await delivered(to);
    expect(await emailsTo(to)).toHaveLength(1);
    // A new Message-ID is a new message.
    await submit({ to, messageId: `<${crypto.randomUUID()}@app.example>` });
    expect(await emailsTo(to)).toHaveLength(2);
  });

  it('appears in the activity feed and GET /emails/:id like any other email', async () => {
    const to = uniqueEmail('feed');
    const info = await submit({ to, subject: 'Feed me' });
    const id = /accepted as ([0-9a-f-]{36})/.exec(info.response)![1];
    await delivered(to);
    const email = await h.http.get(`/emails/${id}`).set(bearer(p.secretKey));
    expect(email.status).toBe(200);
    expect(email.body).toMatchObject({ id, subject: 'Feed me', to: to });
    const feed = await eventually(async () => {
      const res = await h.http.get('/activity?limit=100').set(bearer(p.secretKey));
      return res.body.data.find((a: { email: { id: string } | null }) => a.email?.id === id);
    });
    expect(feed.contact.email).toBe(to);
  });

  it('what is answered 250 while no worker runs reaches the relay once the worker starts, once', async () => {
    const to = uniqueEmail('no-worker');
    await h.stopWorker();
    try {
      expect((await submit({ to })).response).toMatch(/^250 /);
      expect((await emailsTo(to))[0].status).toBe('QUEUED');
      expect(sink.offered(to)).toBe(0);
    } finally {
      await h.startWorker();
    }
    await delivered(to);
    await eventually(async () => (await emailsTo(to))[0].status === 'SENT');
    expect(sink.mailsTo(to)).toHaveLength(1);
  });

  it('a crash between the 250 and the hand-over loses nothing: the committed rows are delivered by the sweep, once', async () => {
    // A process that dies right after answering: its delivery batch never starts.
    const lost = { reserve: () => ({ workflowId: deliverEmailBatchWorkflowId(crypto.randomUUID()), settle: () => undefined }) } as unknown as DeliveryBatcher;
    const crashing = await start({ runtime: { ...h.deps.runtime, events: h.deps.runtime.events, deliveries: lost } });
    const to = uniqueEmail('crash');
    try {
      expect((await submit({ port: crashing.port, to })).response).toMatch(/^250 /);
    } finally {
      await crashing.close();
    }
    const [row] = await emailsTo(to);
    expect(row.status).toBe('QUEUED');
    expect(sink.offered(to)).toBe(0);
    // The sweep leaves fresh rows to their own request; these are old enough.
    await knex()('emails')
      .where({ id: row.id })
      .update({ created_at: new Date(Date.now() - 10 * 60_000) });
    const client = await h.deps.temporal.client();
    const sweep = () => client.workflow.execute('maintenance', { taskQueue: h.taskQueue, workflowId: `maintenance-test-${crypto.randomUUID()}` });
    await sweep();
    await delivered(to);
    await sweep();
    await eventually(async () => (await emailsTo(to))[0].status === 'SENT');
    expect(sink.mailsTo(to)).toHaveLength(1);
  });
});

describe('SMTP submission: what it refuses', () => {
  it('refuses AUTH before STARTTLS (538), and MAIL before AUTH (530)', async () => {
    const s = await smtpDialog(server.port);
    expect(await s.command('EHLO client.example')).toMatch(/STARTTLS/);
    const plain = Buffer.from(`\0user\0${p.secretKey}`).toString('base64');
    expect(await s.command(`AUTH PLAIN ${plain}`)).toMatch(/^538 /);
    expect(await s.command(`MAIL FROM:<${FROM}>`)).toMatch(/^530 /);
    s.close();
  });

  it('advertises SIZE and answers 552 over it', async () => {
    const small = await start({}, { submission: { ...h.config.submission, maxBytes: 4096 } });
    try {
      const s = await smtpDialog(small.port);
      expect(await s.command('EHLO client.example')).toMatch(/250[- ]SIZE 4096/);
      s.close();
      const to = uniqueEmail('big');
      const err = await refusal(submit({ port: small.port, to, text: 'x'.repeat(10_000) }));
      expect(err.responseCode).toBe(552);
      expect(await emailsTo(to)).toHaveLength(0);
    } finally {
      await small.close();
    }
  });

  it('answers 535 to a wrong key, the public key, or another string', async () => {
    for (const pass of ['sk_wrong', p.publicKey, 'hunter2']) {
      const err = await refusal(submit({ pass, to: uniqueEmail() }));
      expect(err.responseCode).toBe(535);
    }
  });

  it('takes a named key with the send scope, and answers 535 to one without it or once revoked', async () => {
    const key = async (scopes: string[]) => {
      const res = await h.http
        .post('/api-keys')
        .set(bearer(p.secretKey))
        .send({ name: `smtp ${scopes.join(' ')}`, scopes });
      expect(res.status).toBe(201);
      return { id: res.body.data?.id ?? res.body.id, secret: (res.body.data?.secret ?? res.body.secret) as string };
    };
    const sender = await key(['send']);
    expect((await submit({ pass: sender.secret, to: uniqueEmail() })).response).toMatch(/^250 /);
    const tracker = await key(['track']);
    expect((await refusal(submit({ pass: tracker.secret, to: uniqueEmail() }))).responseCode).toBe(535);
    expect((await h.http.delete(`/api-keys/${sender.id}`).set(bearer(p.secretKey))).status).toBe(204);
    expect((await refusal(submit({ pass: sender.secret, to: uniqueEmail() }))).responseCode).toBe(535);
  });

  it('throttles failed logins per client address: past the limit even the right key is refused (454)', async () => {
    const strict = await start({}, { authRateLimitPerMinute: 2 });
    try {
      for (let i = 0; i < 2; i++) expect((await refusal(submit({ port: strict.port, pass: 'sk_wrong', to: uniqueEmail() }))).responseCode).toBe(535);
      const err = await refusal(submit({ port: strict.port, to: uniqueEmail() }));
      expect(err.responseCode).toBe(454);
      expect(err.response).toMatch(/too many failed logins/);
    } finally {
      await strict.close();
      await knex()('auth_throttle').where({ scope: 'ip', key: 'smtp:127.0.0.1' }).del();
    }
  });

  it('answers 550 at MAIL FROM for a sender domain the project has not verified', async () => {
    const to = uniqueEmail('unverified');
    const err = await refusal(submit({ to, envelope: { from: 'news@not-verified.example', to: [to] }, from: 'news@not-verified.example' }));
    expect(err.responseCode).toBe(550);
    expect(err.command).toBe('MAIL FROM');
    expect(err.response).toMatch(/not-verified\.example is not verified/);
    expect(await emailsTo(to)).toHaveLength(0);
  });

  it('answers 550 at DATA when the From header names an unverified domain behind a verified envelope sender', async () => {
    const to = uniqueEmail('header-from');
    const err = await refusal(submit({ to, envelope: { from: FROM, to: [to] }, from: 'ceo@not-verified.example' }));
    expect(err.responseCode).toBe(550);
    expect(await emailsTo(to)).toHaveLength(0);
  });

  it('answers 550 per RCPT for a suppressed recipient and still accepts the others', async () => {
    const [suppressed, other] = [uniqueEmail('suppressed'), uniqueEmail('other')];
    const added = await h.http
      .post('/suppressions')
      .set(bearer(p.secretKey))
      .send({ emails: [suppressed] });
    expect(added.status).toBeLessThan(300);
    const info = await submit({ to: [suppressed, other] });
    expect(info.accepted).toEqual([other]);
    expect(info.rejected).toEqual([suppressed]);
    expect((info as unknown as { rejectedErrors: Array<{ responseCode: number }> }).rejectedErrors[0].responseCode).toBe(550);
    await delivered(other);
    expect(sink.offered(suppressed)).toBe(0);
    expect(await emailsTo(suppressed)).toHaveLength(0);
  });

  it("answers 452 at MAIL FROM past the project's rate limit", async () => {
    const q = await createProjectFixture(h, 'Submission rate');
    await verifiedDomain(h, q.projectId, DOMAIN);
    const limited = await start({}, { rateLimitPerMinute: 1 });
    try {
      // One message a minute: of three in a row at most two fall in different windows.
      const answers: Array<{ responseCode?: number; command?: string }> = [];
      for (let i = 0; i < 3 && !answers.some((a) => a.responseCode === 452); i++) {
        answers.push(
          await submit({ port: limited.port, pass: q.secretKey, to: uniqueEmail('rate') }).then(
            () => ({}),
            (err) => err,
          ),
        );
      }
      expect(answers.at(-1)).toMatchObject({ responseCode: 452, command: 'MAIL FROM' });
    } finally {
      await limited.close();
    }
  });

  it('answers 421 while the database is unreachable', async () => {
    const unreachable = createKnex('postgres://postgres@127.0.0.1:1/none', { max: 1 });
    const down = await start({ knex: unreachable });
    try {
      const err = await refusal(submit({ port: down.port, to: uniqueEmail() }));
      expect(err.responseCode).toBe(421);
    } finally {
      await down.close();
      await unreachable.destroy();
    }
  });
});
