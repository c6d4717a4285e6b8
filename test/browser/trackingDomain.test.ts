import crypto from 'node:crypto';
import type { Page } from 'puppeteer-core';
import { bearer, createProjectFixture, eventually, Harness } from '../helpers/harness';
import { verifiedDomain } from '../helpers/fixtures';
import { openDashboard, DashboardSession } from '../helpers/dashboardSession';
import { startDnsServer, TestDnsServer } from '../helpers/dnsServer';

/**
 * The Domains page's "Tracking domain" section in a real headless Chromium against the real app and
 * a real local DNS server: the domain set, its CNAME and TXT shown pending, published, "Check", shown
 * verified. Then the old-link page of the shared host, opened by the browser: shown under its CSP
 * with no script and nothing refused.
 */

let s: DashboardSession;
let h: Harness;
let page: Page;
let dns: TestDnsServer;
const SHARED_HOST = 't.example.net';
const SENDER = 'tracking-ui.example.com';

beforeAll(async () => {
  dns = await startDnsServer();
  s = await openDashboard({ env: { DNS_SERVERS: dns.address, TRACKING_URL: `https://${SHARED_HOST}` }, harness: { worker: true } });
  ({ h, page } = s);
}, 300_000);
afterAll(async () => {
  await s?.close();
  await dns?.stop();
});

const rowsOf = (table: string) =>
  page.$$eval(`table[aria-label="${table}"] tbody tr`, (rows) =>
    rows.map((r) => (r as unknown as { innerText: string }).innerText.replace(/\s+/g, ' ').trim()),
  );

it('sets a tracking domain, shows the CNAME to create, and verifies it with "Check"', async () => {
  const project = await s.signUp('Tracking domain project');
  const domain = `track-${crypto.randomBytes(4).toString('hex')}.example.test`;
  await s.click('Domains', 'link');
  await s.waitForText('Tracking domain');
  await s.fill('Tracking domain name', domain);
  await s.click('Set tracking domain');
  const table = `DNS records of the tracking domain ${domain}`;
  await page.waitForSelector(`table[aria-label="${table}"]`);
  expect(await page.$eval('[data-testid="tracking-domain-status"]', (el) => el.textContent)).toBe('Pending');
  const rows = await rowsOf(table);
  // Badges are upper-cased by CSS, which innerText follows.
  expect(rows[0].toLowerCase()).toBe(`cname ${domain} copy ${SHARED_HOST} copy missing`);
  expect(rows[1].toLowerCase()).toMatch(/^txt _svc-tracking\..+ copy svc-tracking=\w+ copy missing$/);

  // The owner publishes what the API lists, then checks.
  const listed = (await h.http.get('/tracking-domain').set(bearer(project.secretKey))).body;
  dns.set(domain, 'CNAME', [SHARED_HOST]);
  dns.set(listed.records[1].name, 'TXT', [listed.records[1].value]);
  await s.click('Check');
  await page.waitForFunction(() => (globalThis as any).document.querySelector('[data-testid="tracking-domain-status"]')?.textContent === 'Verified', {
    timeout: 45_000,
  });
  expect((await rowsOf(table)).every((r) => r.toLowerCase().endsWith('found'))).toBe(true);

  // Removing asks first, then the form to set one is back.
  await s.click('Remove tracking domain');
  await s.click('Remove');
  await page.waitForFunction((t: string) => !(globalThis as any).document.querySelector(`table[aria-label="${t}"]`), { timeout: 45_000 }, table);
  await s.inputId('Tracking domain name');
  expect((await h.http.get('/tracking-domain').set(bearer(project.secretKey))).status).toBe(404);
  expect(s.problems).toEqual([]);
});

it("shows an old link's page on the shared host under its CSP, naming the destination", async () => {
  const fx = await createProjectFixture(h, 'Tracking domain, old link');
  await verifiedDomain(h, fx.projectId, SENDER);
  const sent = await h.http
    .post('/v1/send')
    .set(bearer(fx.secretKey))
    .send({ from: `hello@${SENDER}`, to: 'reader@example.org', subject: 'Hi', body: '<a href="https://shop.example/old">Old</a>', track: { clicks: true } });
  expect(sent.status).toBe(200);
  const emailId = sent.body.data.emails[0].email;
  const rendered = await eventually(async () => (await h.deps.knex('emails').where({ id: emailId }).first('rendered_body'))?.rendered_body);
  const path = new URL(/href="([^"]+)"/.exec(rendered)![1]).pathname;
  await h.deps
    .knex('emails')
    .where({ id: emailId })
    .update({ created_at: h.deps.knex.raw("now() - interval '400 days'"), sent_at: h.deps.knex.raw("now() - interval '400 days'") });

  // The browser reaches the app on its own host: for this email, a shared host.
  await page.goto(`${s.api.url}${path}`, { waitUntil: 'load' });
  expect(await page.title()).toBe('Check where this link leads');
  const body = await page.$eval('body', (el: any) => el.innerText as string);
  expect(body).toContain('https://shop.example/old');
  expect(await page.$eval('a', (a: any) => a.getAttribute('href'))).toBe('https://shop.example/old');
  expect(await page.$$eval('script', (els) => els.length)).toBe(0);
  expect(s.problems).toEqual([]);
});
