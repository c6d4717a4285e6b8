import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn, ChildProcess } from 'node:child_process';
import nodemailer from 'nodemailer';
import type { Knex } from 'knex';
import { loadConfig } from '../../lib/config';
import { createKnex, dropDatabase } from '../../db/knex';
import { startDevInbox } from '../../scripts/devInbox';
import { freePortRange } from '../../scripts/temporalServer';
import { launchBrowser, TestBrowser } from '../helpers/browser';
import { eventually } from '../helpers/harness';
import { call, bearer } from '../cluster/clusterClient';

/**
 * The development inbox: which configurations run it, maildev itself behind scripts/devInbox.ts,
 * and `npm start` with no provider as a newcomer meets it — its own process, database, DATA_DIR and
 * ports — sending through the API to the inbox, whose page a real Chromium renders.
 */
const ROOT = path.resolve(__dirname, '..', '..');

interface InboxEmail {
  id: string;
  subject: string;
  html?: string;
  from: { address: string }[];
  to: { address: string }[];
}

const inboxEmails = async (webUrl: string): Promise<InboxEmail[]> => (await fetch(`${webUrl}/email`)).json() as Promise<InboxEmail[]>;
const withSubject = (webUrl: string, subject: string) => eventually(async () => (await inboxEmails(webUrl)).find((e) => e.subject === subject), 60_000, 200);
const answers = (url: string) =>
  fetch(url, { signal: AbortSignal.timeout(2000) }).then(
    () => true,
    () => false,
  );

describe('which configurations run the development inbox', () => {
  // A fixed secret keeps loadConfig from generating one into DATA_DIR.
  const load = (env: Record<string, string> = {}) => loadConfig({ JWT_SECRET: 'x'.repeat(32), ...env });

  it('runs it, on loopback, when no variable names a provider; its ports are configurable', () => {
    expect(load().devInbox).toEqual({ host: '127.0.0.1', smtpPort: 1025, webPort: 1080, smtp: { url: 'smtp://127.0.0.1:1025', poolSize: 5 } });
    expect(load({ DEV_INBOX_SMTP_PORT: '2525', DEV_INBOX_WEB_PORT: '8025', SMTP_POOL_SIZE: '2' }).devInbox).toEqual({
      host: '127.0.0.1',
      smtpPort: 2525,
      webPort: 8025,
      smtp: { url: 'smtp://127.0.0.1:2525', poolSize: 2 },
    });
    // Without the inbox (`npm run api`, `npm run worker`) the transport stays `log`.
    expect(load().email.transport).toBe('log');
  });

  it.each<Record<string, string>>([
    { EMAIL_TRANSPORT: 'log' },
    { EMAIL_TRANSPORT: 'ses' },
    { SMTP_URL: 'smtp://mail.example.com:587' },
    { SENDGRID_API_KEY: 'SG.key' },
  ])('does not run it when %o names a transport', (env) => {
    expect(load(env).devInbox).toBeUndefined();
  });

  it('refuses ports outside 1–65535', () => {
    expect(() => load({ DEV_INBOX_SMTP_PORT: '0' })).toThrow(/DEV_INBOX_SMTP_PORT/);
    expect(() => load({ DEV_INBOX_WEB_PORT: '70000' })).toThrow(/DEV_INBOX_WEB_PORT/);
    expect(() => load({ TEMPORAL_PORT: 'x' })).toThrow(/TEMPORAL_PORT/);
  });
});

describe('the inbox (maildev through scripts/devInbox.ts)', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-inbox-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('lists what it is sent over SMTP, and keeps messages across a restart', async () => {
    const first = await freePortRange(2);
    const opts = { host: '127.0.0.1' as const, smtpPort: first, webPort: first + 1, mailDirectory: path.join(dir, 'mail') };
    let inbox = await startDevInbox(opts);
    const subject = `Caught ${crypto.randomBytes(4).toString('hex')}`;
    try {
      const smtp = nodemailer.createTransport({ host: '127.0.0.1', port: opts.smtpPort, secure: false, ignoreTLS: true });
      await smtp.sendMail({ from: 'hello@example.com', to: 'newcomer@example.org', subject, html: '<h1>Hi there</h1>' });
      smtp.close();
      const caught = await withSubject(inbox.webUrl, subject);
      expect(caught.to.map((t) => t.address)).toEqual(['newcomer@example.org']);
      expect(caught.html).toContain('<h1>Hi there</h1>');
    } finally {
      await inbox.stop();
    }
    expect(await answers(`${inbox.webUrl}/email`)).toBe(false);

    inbox = await startDevInbox(opts);
    try {
      expect((await inboxEmails(inbox.webUrl)).map((e) => e.subject)).toContain(subject);
    } finally {
      await inbox.stop();
    }
  }, 60_000);

  it('fails to start, saying so, when its SMTP port is taken', async () => {
    const first = await freePortRange(2);
    const squatter = net.createServer();
    await new Promise<void>((resolve) => squatter.listen(first, '127.0.0.1', resolve));
    try {
      await expect(startDevInbox({ host: '127.0.0.1', smtpPort: first, webPort: first + 1, mailDirectory: path.join(dir, 'taken') })).rejects.toThrow(
        /maildev exited with code/,
      );
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  }, 60_000);
});

/** `npm start` as a newcomer's shell runs it: nothing names a provider or a cluster. */
function spawnStart(env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const full: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info', ...env };
  for (const name of ['EMAIL_TRANSPORT', 'SMTP_URL', 'SENDGRID_API_KEY', 'TEMPORAL_ADDRESS', 'APP_URL']) delete full[name];
  const child = spawn(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['scripts/start.ts'], { cwd: ROOT, env: full, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  return { child, output: () => output };
}

describe('`npm start` with no provider', () => {
  let child: ChildProcess;
  let output: () => string;
  let dataDir: string;
  let databaseUrl: string;
  let knex: Knex;
  let api: string;
  let smtpPort: number;
  let webPort: number;
  let inboxUrl: string;
  let tb: TestBrowser | undefined;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-start-'));
    const db = new URL(process.env.DATABASE_URL!);
    db.pathname = `/svc_start_${Date.now()}_${crypto.randomBytes(3).toString('hex')}`;
    databaseUrl = db.toString();
    const first = await freePortRange(5);
    api = `http://127.0.0.1:${first}`;
    [smtpPort, webPort] = [first + 3, first + 4];
    ({ child, output } = spawnStart({
      PORT: String(first),
      TEMPORAL_PORT: String(first + 1),
      TEMPORAL_UI_PORT: String(first + 2),
      DEV_INBOX_SMTP_PORT: String(smtpPort),
      DEV_INBOX_WEB_PORT: String(webPort),
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
    }));
    // The inbox line comes last, once the API listens and the worker is built.
    const line = await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${output()}`);
        return logLines().find((l) => l.msg?.startsWith('development inbox at') && l.url);
      },
      240_000,
      250,
    ).catch((err) => {
      throw new Error(`${err.message}\nnpm start output:\n${output()}`);
    });
    inboxUrl = line.url!;
    knex = createKnex(databaseUrl, { max: 2 });
  }, 300_000);

  afterAll(async () => {
    await tb?.close();
    await knex?.destroy();
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    if (databaseUrl) await dropDatabase(databaseUrl);
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  const logLines = () =>
    output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg?: string; url?: string; smtp?: string });

  it('says where the inbox is, delivers /v1/send there over SMTP, and its page shows the rendered email', async () => {
    expect(inboxUrl).toBe(`http://127.0.0.1:${webPort}`);
    const said = logLines().find((l) => l.msg?.startsWith('development inbox at'))!;
    expect(said.msg).toContain(inboxUrl);
    expect(said.smtp).toBe(`smtp://127.0.0.1:${smtpPort}`);
    // The dashboard's address is the first one the log gives, and it is served.
    const urls = logLines().filter((l) => l.url);
    expect(urls[0].msg).toBe(`Dashboard at http://localhost:${new URL(api).port}/app/`);
    const dashboardPage = await fetch(`${api}/app/`);
    expect(dashboardPage.status).toBe(200);
    expect(await dashboardPage.text()).toContain('<div id="root">');

    // A newcomer's first steps (README): sign up, create a project, add a sender domain.
    const signup = await fetch(`${api}/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `newcomer-${crypto.randomBytes(4).toString('hex')}@example.test`, password: 'correct horse battery' }),
    });
    expect(signup.status).toBe(201);
    const cookie = signup.headers.getSetCookie()[0].split(';')[0];
    const project = await call(api, 'POST', '/users/@me/projects', { body: { name: 'My project' }, headers: { Cookie: cookie } });
    expect(project.status).toBe(201);
    const key = bearer(project.body.secretKey);
    const domain = await call(api, 'POST', '/domains', { body: { domain: 'inbox.example.com' }, headers: key });
    expect(domain.status).toBe(201);
    // A first email before any DNS: with the development inbox the sender-domain check is waived
    // (lib/config.ts senderCheckWaived), so even a domain the project never added sends; unsigned.
    const first = `First ${crypto.randomBytes(4).toString('hex')}`;
    const unverified = await call(api, 'POST', '/v1/send', {
      body: { from: 'hello@never-added.example.net', to: 'reader@example.org', subject: first, body: '<p>Before any DNS</p>' },
      headers: key,
    });
    expect(unverified.status).toBe(200);
    const firstCaught = await withSubject(inboxUrl, first);
    expect(firstCaught.from.map((f) => f.address)).toEqual(['hello@never-added.example.net']);
    const config = await call(api, 'GET', '/config', {});
    expect(config.body.email).toEqual({ transport: 'smtp', localInbox: true, inboxUrl, senderCheckWaived: true });

    // Verified without DNS, as the other tests' fixtures do (the domains tests cover the DNS path).
    await knex('domains').where({ id: domain.body.id }).update({ status: 'VERIFIED', verified_at: new Date() });

    const subject = `Welcome ${crypto.randomBytes(4).toString('hex')}`;
    const sent = await call(api, 'POST', '/v1/send', {
      body: { from: 'hello@inbox.example.com', to: 'reader@example.org', subject, body: '<h1>Welcome aboard</h1><p>Your first email, read in the inbox.</p>' },
      headers: key,
    });
    expect(sent.status).toBe(200);

    // The inbox's HTTP API has it, as the SMTP transport handed it over.
    const caught = await withSubject(inboxUrl, subject);
    expect(caught.from.map((f) => f.address)).toEqual(['hello@inbox.example.com']);
    expect(caught.to.map((t) => t.address)).toEqual(['reader@example.org']);
    expect(caught.html).toContain('<h1>Welcome aboard</h1>');
    // Signed with the domain's own key, as a real relay would get it (docs/providers.md).
    const source = await (await fetch(`${inboxUrl}/email/${caught.id}/source`)).text();
    expect(source).toMatch(/^DKIM-Signature:[\s\S]*?\bd=inbox\.example\.com;/m);

    // The page, in a real browser: the message is listed, and opening it renders its HTML.
    tb = await launchBrowser();
    const page = await tb.browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(String(e)));
    await page.setViewport({ width: 960, height: 540 });
    await page.goto(inboxUrl, { waitUntil: 'load' });
    const item = await page.waitForSelector(`::-p-xpath(//li[contains(@class, "email-item")]//a[contains(., "${subject}")])`, { timeout: 30_000 });
    await Promise.all([page.waitForSelector('iframe.panel-html'), item!.click()]);
    const preview = await eventually(async () => page.frames().find((f) => f.url().endsWith(`/email/${caught.id}/html`)), 30_000);
    await preview.waitForFunction(() => (globalThis as any).document.body?.innerText.includes('Welcome aboard'), { timeout: 30_000 });
    expect(await preview.$eval('h1', (h: any) => h.innerText)).toBe('Welcome aboard');
    expect(await page.$eval('.subject', (s: any) => s.innerText)).toBe(subject);

    // DEV_INBOX_SCREENSHOT=docs/img/dev-inbox.png refreshes the picture docs/providers.md shows.
    const shot = path.resolve(ROOT, process.env.DEV_INBOX_SCREENSHOT ?? path.join(dataDir, 'dev-inbox.png'));
    await page.screenshot({ path: shot });
    expect(fs.readFileSync(shot).subarray(1, 4).toString()).toBe('PNG');
    expect(problems).toEqual([]);
  }, 180_000);

  it('stops the inbox with the rest on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(await answers(`${inboxUrl}/email`)).toBe(false);
  }, 60_000);
});

describe('`npm start` when the inbox cannot listen', () => {
  it("stops with maildev's error before it starts anything else", async () => {
    const first = await freePortRange(5);
    const squatter = net.createServer();
    await new Promise<void>((resolve) => squatter.listen(first + 4, '127.0.0.1', resolve));
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-start-'));
    try {
      const { child, output } = spawnStart({
        PORT: String(first),
        TEMPORAL_PORT: String(first + 1),
        TEMPORAL_UI_PORT: String(first + 2),
        DEV_INBOX_SMTP_PORT: String(first + 3),
        DEV_INBOX_WEB_PORT: String(first + 4),
        DATA_DIR: dataDir,
      });
      const code = await new Promise((resolve) => child.once('exit', resolve));
      expect(code).toBe(1);
      expect(output()).toMatch(/start failed: Error: maildev exited with code \d+[\s\S]*EADDRINUSE/);
      // The Temporal dev server was never started: its port is free.
      expect(await answers(`http://127.0.0.1:${first + 2}`)).toBe(false);
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
