/**
 * `npx tsx scripts/dashboardScreenshots.ts`: the pictures of docs/dashboard.md. Builds the dashboard
 * when stale, starts a stack of its own (a Temporal dev server, a fresh Postgres database, the worker
 * and the API, the development-inbox flag on so its banner shows), seeds a project through the API,
 * and photographs each built screen at 1280×800 (and the contacts list and the template editor at 390×844) in headless
 * Chromium (puppeteer-core driving CHROMIUM_PATH, default /usr/bin/chromium) into
 * docs/img/dashboard-*.png. Removes its database and stops everything afterwards.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import puppeteer from 'puppeteer-core';
import { loadConfig } from '../lib/config';
import { createLogger } from '../lib/logger';
import { createKnex, dropDatabase, ensureDatabase, migrateLatest } from '../db/knex';
import { startDevServer } from '../worker/devServer';
import { createTemporalGateway } from '../services/temporal';
import { createRuntime } from '../services/runtime';
import { createWorker } from '../worker/worker';
import { startApi, closeServer } from '../api/server';
import { ensureDashboardBuilt } from './buildWeb';

const OUT = path.resolve(__dirname, '..', 'docs', 'img');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const BASE_DB = process.env.SCREENSHOT_DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function main() {
  await ensureDashboardBuilt((line) => process.stdout.write(`${line}\n`));
  const url = new URL(BASE_DB);
  url.pathname = `/svc_dashshots_${Date.now()}_${crypto.randomBytes(3).toString('hex')}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-dashshots-'));
  const server = await startDevServer({ headless: true });
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: url.toString(),
    JWT_SECRET: 'screenshots-secret-screenshots-secret',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    PORT: '0',
    TEMPORAL_ADDRESS: server.address,
  });
  // As under `npm start` with no provider: the banner, and senders without DNS.
  config.email.localInbox = true;
  const log = createLogger('warn', 'dashboard-screenshots');
  await ensureDatabase(config.databaseUrl);
  const knex = createKnex(config.databaseUrl);
  const cleanups: Array<() => Promise<unknown>> = [];
  try {
    await migrateLatest(knex);
    const { worker, close } = await createWorker({ config, knex, log, address: server.address });
    const running = worker.run();
    cleanups.push(async () => {
      worker.shutdown();
      await running;
      await close();
    });
    const temporal = createTemporalGateway(config, server.address);
    const api = await startApi({ config, knex, temporal, log, runtime: createRuntime({ config, knex, temporal, log }) });
    cleanups.push(async () => {
      await closeServer(api);
      await temporal.close();
    });
    const base = `http://localhost:${(api.address() as AddressInfo).port}`;
    // Links in the app are built from APP_URL; the browser only needs the same origin.
    config.appUrl = base;
    config.dashboardOrigins.push(base);
    const call = async (method: string, p: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(base + p, {
        method,
        headers: { 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (res.status >= 400) throw new Error(`${method} ${p}: ${res.status} ${text}`);
      return { json: text ? JSON.parse(text) : null, headers: res.headers };
    };

    // The seeded project: a pending domain, 60 contacts with fields, a few events, one template.
    const password = 'correct horse battery';
    const signup = await call('POST', '/auth/signup', { email: 'operator@example.com', password });
    const cookie = signup.headers.get('set-cookie')!.split(';')[0];
    const project = (await call('POST', '/users/@me/projects', { name: 'Acme newsletter' }, { cookie })).json;
    const auth = { Authorization: `Bearer ${project.secretKey}` };
    await call('POST', '/domains', { domain: 'mail.acme.test' }, auth);
    const plans = ['free', 'pro', 'team'];
    for (let i = 0; i < 60; i++) {
      await call(
        'POST',
        '/contacts',
        {
          email: `reader${String(i).padStart(2, '0')}@example.org`,
          subscribed: i % 7 !== 3,
          data: { firstName: `Reader ${i}`, plan: plans[i % 3], seats: (i % 5) + 1 },
        },
        auth,
      );
    }
    for (const event of ['signup', 'opened_app', 'purchase'])
      await call('POST', '/events/track', { email: 'reader00@example.org', event, data: { source: 'web' } }, auth);
    const welcome = (
      await call(
        'POST',
        '/templates',
        {
          name: 'Welcome',
          description: 'Sent by the onboarding workflow',
          subject: 'Welcome, {{ firstName }}',
          body: '<div style="font-family: sans-serif; max-width: 560px">\n  <h1 style="color: #4c6ef5">Welcome, {{ firstName ?? "friend" }}!</h1>\n  <p>Thanks for joining on the {{ plan }} plan.</p>\n  {% if seats > 1 %}<p>Invite your {{ seats | minus: 1 }} teammates from the settings page.</p>{% endif %}\n  <p><a href="{{ unsubscribeUrl }}">Unsubscribe</a></p>\n</div>',
          from: 'hello@mail.acme.test',
          fromName: 'Acme',
          type: 'TRANSACTIONAL',
        },
        auth,
      )
    ).json;
    await call('POST', '/templates', { name: 'Monthly digest', subject: 'Your {{ plan }} digest', body: '<p>News</p>', from: 'news@mail.acme.test' }, auth);
    await call('POST', '/v1/send', { to: 'reader00@example.org', template: welcome.id, data: { firstName: 'Reader 0', plan: 'free', seats: 1 } }, auth);
    await call('PATCH', '/settings', { timezone: 'Europe/Paris', quietHours: { start: '21:00', end: '08:00' }, frequencyCap: { max: 3, per: 'week' } }, auth);
    const hook = (
      await call('POST', '/webhook-endpoints', { url: 'https://crm.acme.test/hooks/svc', events: ['email.*', 'contact.*'], description: 'CRM sync' }, auth)
    ).json;
    await call('POST', `/webhook-endpoints/${hook.id}/test`, {}, auth);

    fs.mkdirSync(OUT, { recursive: true });
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-chromium-'));
    const browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', `--user-data-dir=${profile}`],
    });
    cleanups.push(async () => {
      await browser.close();
      fs.rmSync(profile, { recursive: true, force: true });
    });
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    const text = (t: string) =>
      page.waitForFunction((s: string) => (globalThis as any).document.body.innerText.toLowerCase().includes(s), { timeout: 30_000 }, t.toLowerCase());
    const shot = async (name: string) => {
      await new Promise((r) => setTimeout(r, 400)); // transitions settle
      await page.screenshot({ path: path.join(OUT, `dashboard-${name}.png`) });
      process.stdout.write(`docs/img/dashboard-${name}.png\n`);
    };
    const fill = async (label: string, value: string) => {
      const id = await page.evaluate(
        (l: string) => [...(globalThis as any).document.querySelectorAll('label')].find((x: any) => x.textContent.replace('*', '').trim() === l)?.htmlFor,
        label,
      );
      await page.type(`[id="${id}"]`, value);
    };
    const click = async (name: string, role = 'button') => (await page.waitForSelector(`::-p-aria([name="${name}"][role="${role}"])`))!.click();

    await page.goto(`${base}/app/signup`, { waitUntil: 'networkidle0' });
    await shot('signup');
    await page.goto(`${base}/app/login`, { waitUntil: 'networkidle0' });
    await fill('Email', 'operator@example.com');
    await fill('Password', password);
    await click('Log in');
    await text('Setup checklist');
    await shot('setup');
    await click('API keys', 'link');
    await click('Rotate keys');
    await text('stop working at once');
    await shot('keys-rotate');
    await click('Rotate now');
    await text('shown once');
    await shot('keys');
    await click('Domains', 'link');
    await text('DNS records');
    await shot('domains');
    await click('Contacts', 'link');
    await text('60 contacts');
    await shot('contacts');
    await fill('Search', 'reader00');
    await text('1 contact');
    await click('reader00@example.org', 'link');
    await text('purchase');
    await shot('contact');
    await click('Team', 'link');
    await text('Pending invites');
    await fill('Email', 'colleague@example.com');
    await click('Invite');
    await text('colleague@example.com');
    await shot('team');
    await click('Activity', 'link');
    await text('purchase');
    await shot('activity');
    await click('Events', 'link');
    await text('opened_app');
    await click('purchase');
    await text('Not used by any segment');
    await shot('events');
    await click('Templates', 'link');
    await text('2 templates');
    await shot('templates');
    await click('Welcome', 'link');
    await page.waitForFunction(() => ((globalThis as any).document.querySelector('iframe[title="Preview"]')?.srcdoc ?? '').includes('Welcome'), {
      timeout: 30_000,
    });
    // The body's code editor is a chunk of its own.
    await page.waitForSelector('.cm-content', { timeout: 30_000 });
    await shot('template');
    await click('Webhooks', 'link');
    await text('CRM sync');
    await click('Show deliveries');
    await text('webhook.test');
    await shot('webhooks');
    await click('Settings', 'link');
    await text('Danger zone');
    await shot('settings');
    await click('Suppressions', 'link');
    await text('Suppress address');
    await shot('suppressions');
    await page.goto(`${base}/app/account`, { waitUntil: 'networkidle0' });
    await text('Sign out everywhere');
    await shot('account');
    await page.goto(`${base}/app/account/two-factor`, { waitUntil: 'networkidle0' });
    await click('Enable two-factor authentication');
    await page.waitForSelector('img[src^="data:image/png"]', { timeout: 30_000 });
    await shot('two-factor');
    await page.goto(`${base}/app/p/${project.id}`, { waitUntil: 'networkidle0' });
    await page.setViewport({ width: 390, height: 844 });
    await click('Toggle navigation');
    await click('Contacts', 'link');
    await text('60 contacts');
    await shot('contacts-mobile');
    await page.goto(`${base}/app/p/${project.id}/templates/${welcome.id}`, { waitUntil: 'networkidle0' });
    await text('Preview data');
    await page.waitForSelector('.cm-content', { timeout: 30_000 });
    await shot('template-mobile');
  } finally {
    for (const c of cleanups.reverse()) await c().catch((e) => process.stderr.write(`cleanup: ${e}\n`));
    await knex.destroy();
    await dropDatabase(config.databaseUrl).catch(() => undefined);
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
