import crypto from 'node:crypto';
import type { Page } from 'puppeteer-core';
import { startHarness, bearer, Harness } from '../helpers/harness';
import { launchBrowser, startLocalServer, LocalServer, TestBrowser } from '../helpers/browser';
import { ensureDashboardBuilt } from '../../scripts/buildWeb';

/**
 * The dashboard (web/, served under /app/ by api/dashboard.ts) in a real headless Chromium against
 * the real app: a newcomer signs up, creates a project, sees the setup checklist, rotates the keys,
 * finds a contact added through the API, and adds a domain. One browser, one app server.
 */

let api: LocalServer;
let h: Harness;
let tb: TestBrowser;
let page: Page;
/** Script errors and CSP refusals; the flow expects none. */
const problems: string[] = [];

beforeAll(async () => {
  // Builds web/dist when missing or stale, as `npm start` does.
  await ensureDashboardBuilt(() => undefined);
  api = await startLocalServer();
  h = await startHarness({ env: { APP_URL: api.url } });
  api.handle(h.built.app.callback());
  tb = await launchBrowser();
  page = await tb.browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  page.on('console', (m) => {
    // 4xx answers the flow causes on purpose (GET /users/@me before signing in) are logged as failed loads.
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(String(e)));
}, 300_000);
afterAll(async () => {
  await tb?.close();
  await h?.stop();
  await api?.close();
});

async function waitForText(text: string, timeout = 20_000) {
  try {
    // innerText is what is rendered (badges are upper-cased by CSS): compared without case.
    await page.waitForFunction((t: string) => (globalThis as any).document.body.innerText.toLowerCase().includes(t), { timeout }, text.toLowerCase());
  } catch {
    const shown = await page.evaluate(() => (globalThis as any).document.body.innerText as string).catch(() => '?');
    throw new Error(`"${text}" not shown at ${page.url()}; the page says:\n${shown}\n${problems.join('\n')}`);
  }
}

/** The input whose visible label is `label` (Mantine marks required fields with an aria-hidden asterisk). */
async function fill(label: string, value: string) {
  const id = await page.waitForFunction(
    (l: string) => {
      const el = [...(globalThis as any).document.querySelectorAll('label')].find((x: any) => x.textContent!.replace('*', '').trim() === l);
      return el?.htmlFor || null;
    },
    { timeout: 20_000 },
    label,
  );
  const selector = `[id="${await id.jsonValue()}"]`;
  await page.click(selector, { clickCount: 3 });
  await page.type(selector, value);
}

const click = async (name: string, role = 'button') => (await page.waitForSelector(`::-p-aria([name="${name}"][role="${role}"])`, { timeout: 20_000 }))!.click();

const email = (tag: string) => `${tag}-${crypto.randomBytes(5).toString('hex')}@example.test`;

it('signs up, creates a project, rotates its keys, finds a contact, adds a domain and invites a member', async () => {
  h.config.email.localInbox = true;

  // A browser opening the server's root lands on the dashboard, served with a CSP and no inline script.
  const res = await page.goto(`${api.url}/`, { waitUntil: 'load' });
  expect(res!.url()).toBe(`${api.url}/app/`);
  // Signed out: the app sends the visitor on to the login form.
  await waitForText('Log in');
  expect(page.url()).toBe(`${api.url}/app/login`);
  expect(res!.headers()['content-security-policy']).toMatch(/script-src 'self'/);
  expect(await page.$$eval('script', (s) => s.filter((x) => !x.getAttribute('src')).length)).toBe(0);

  // Sign up → the first-project form.
  await click('Create an account', 'link');
  await waitForText('Create your account');
  const me = email('newcomer');
  await fill('Email', me);
  await fill('Password', 'correct horse battery');
  await click('Sign up');
  await waitForText('Project name');
  expect(page.url()).toBe(`${api.url}/app/new-project`);
  await fill('Project name', 'Browser project');
  await click('Create project');

  // The project: the development-inbox banner, the setup checklist, the new keys shown once.
  await waitForText('Setup checklist');
  await waitForText('Development inbox: mail does not leave this machine');
  const projectId = /\/app\/p\/([0-9a-f-]{36})/.exec(page.url())![1];
  await waitForText('0 of 6 done');
  const firstKey = await page.$eval('[data-testid="full-secret-key"]', (el) => el.textContent!);
  expect(firstKey).toMatch(/^sk_/);
  for (const name of ['Contacts', 'Templates', 'Campaigns', 'Segments', 'Workflows', 'Activity', 'Domains', 'API keys', 'Team', 'Settings', 'Webhooks']) {
    expect(await page.$(`::-p-aria([name="${name}"][role="link"])`)).not.toBeNull();
  }

  // API keys: masked, rotation confirmed, the new pair shown once; the old key stops at once.
  await click('API keys', 'link');
  await waitForText('Rotate keys');
  expect(await page.$eval('[data-testid="masked-secret-key"]', (el) => el.textContent)).toBe(`sk_…${firstKey.slice(-4)}`);
  await click('Rotate keys');
  await waitForText('The old keys stop working at once');
  await click('Rotate now');
  await page.waitForFunction((old: string) => {
    const el = (globalThis as any).document.querySelector('[data-testid="full-secret-key"]');
    return el && el.textContent !== old;
  }, { timeout: 20_000 }, firstKey);
  const secretKey = await page.$eval('[data-testid="full-secret-key"]', (el) => el.textContent!);
  expect((await h.http.get('/contacts').set(bearer(firstKey))).status).toBe(401);
  expect((await h.http.get('/contacts').set(bearer(secretKey))).status).toBe(200);

  // A contact added through the API, found with Search, opened.
  const contact = email('found');
  expect((await h.http.post('/contacts').set(bearer(secretKey)).send({ email: contact, data: { plan: 'pro' } })).status).toBe(201);
  expect((await h.http.post('/contacts').set(bearer(secretKey)).send({ email: email('other') })).status).toBe(201);
  await click('Contacts', 'link');
  await waitForText('2 contacts');
  await fill('Search', contact.slice(0, 14));
  await waitForText('1 contact');
  expect(await page.$eval('table[aria-label="Contacts"]', (t) => (t as any).innerText)).toContain(contact);
  await click(contact, 'link');
  await waitForText('Fields');
  await waitForText('"pro"');
  expect(page.url()).toContain(`/app/p/${projectId}/contacts/cnt_`);

  // Domains: add one, its records as a table with copy buttons, pending until DNS says otherwise.
  await click('Domains', 'link');
  await waitForText('No domains yet');
  await fill('Domain', 'mail.browser.example.com');
  await click('Add domain');
  await page.waitForSelector('table[aria-label="DNS records of mail.browser.example.com"]', { timeout: 20_000 });
  expect(await page.$eval('[data-testid="domain-status"]', (el) => el.textContent)).toBe('Pending');
  expect(await page.$('::-p-aria([name="Copy ownership record value"][role="button"])')).not.toBeNull();
  expect(await page.$('::-p-aria([name="Verify now"][role="button"])')).not.toBeNull();

  // The checklist now counts the domain and the contacts.
  await click('Setup', 'link');
  await waitForText('2 of 6 done');

  // Team: the owner is listed and invites someone, who shows as a pending invite.
  await click('Team', 'link');
  await waitForText('Pending invites');
  expect(await page.$eval('table[aria-label="Members"]', (t) => (t as any).innerText)).toContain(me);
  const invitee = email('invitee');
  await fill('Email', invitee);
  await click('Invite');
  await page.waitForSelector('table[aria-label="Pending invites"]', { timeout: 20_000 });
  expect(await page.$eval('table[aria-label="Pending invites"]', (t) => (t as any).innerText)).toContain(invitee);

  // Activity: the feed with its type filters, without an error.
  await click('Activity', 'link');
  await page.waitForSelector('[aria-label="Types shown"]', { timeout: 20_000 });
  await page.waitForFunction(() => !(globalThis as any).document.querySelector('[role="status"]'), { timeout: 20_000 });
  expect(await page.$('[data-testid="error-state"]')).toBeNull();

  // Log out (POST /auth/logout): back at the sign-in form, and the cookie no longer opens a page.
  await click('Log out');
  await page.waitForSelector('::-p-aria([name="Log in"][role="button"])', { timeout: 20_000 });
  expect(await page.evaluate(async () => (await fetch('/users/@me')).status)).toBe(401);
  expect(problems).toEqual([]);
}, 180_000);
