import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import nodemailer from 'nodemailer';
import type { Page } from 'puppeteer-core';
import { bearer, Harness } from '../helpers/harness';
import { openDashboard, DashboardSession, testEmail } from '../helpers/dashboardSession';
import { startDnsServer, TestDnsServer } from '../helpers/dnsServer';
import { startSmtpSink, SmtpSink } from '../helpers/smtpSink';
import { verifiedDomain } from '../helpers/fixtures';
import { reply } from '../helpers/inboundMail';
import { startInboundServer, InboundServer } from '../../inbound/server';

/**
 * Every screen of the dashboard once, in one headless Chromium session, as a project's OWNER:
 * axe-core finds no serious or critical violation (colour contrast included), each tab is titled
 * "<screen> · <project>", and "Skip to content" is the first thing the Tab key reaches. Then the
 * screens for what the API already did: Suppressions (one address, then a CSV, then a removal the
 * audit log records), Inbound (a reply with its parsed headers and the contact it matched), Domains
 * (the SPF of the SMTP relay, not SendGrid's; a sentence per record not found; "Verify now" saying
 * what it found; "Delete domain"); and the dark theme following the system, with its switch.
 */

let s: DashboardSession;
let h: Harness;
let page: Page;
let dns: TestDnsServer;
let sink: SmtpSink;
let inbound: InboundServer;
/** The project the first test signs up with; the later ones work in it. */
let projectId: string;
let key: { Authorization: string };
const PROJECT = 'Axe project';
const DIALOG = '[role="dialog"]';
const VERIFIED = `inbox-${crypto.randomBytes(4).toString('hex')}.example.com`;
const PENDING = `pending-${crypto.randomBytes(4).toString('hex')}.example.com`;
const AXE = fs.readFileSync(path.join(__dirname, '..', '..', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

beforeAll(async () => {
  [dns, sink] = await Promise.all([startDnsServer(), startSmtpSink()]);
  // The SMTP transport: a sender domain's SPF must name the relay, never SendGrid.
  s = await openDashboard({ env: { DNS_SERVERS: dns.address, EMAIL_TRANSPORT: 'smtp', SMTP_URL: sink.url } });
  ({ h, page } = s);
  inbound = await startInboundServer(h.deps, { port: 0, host: '127.0.0.1' });
}, 300_000);
afterAll(async () => {
  await inbound?.close();
  await s?.close();
  await Promise.all([dns?.stop(), sink?.stop()]);
});

/** `DASHBOARD_SCREENSHOTS=1` photographs the new screens into docs/img. */
async function photograph(name: string) {
  if (!process.env.DASHBOARD_SCREENSHOTS) return;
  await new Promise((r) => setTimeout(r, 800));
  await page.screenshot({ path: `docs/img/dashboard-${name}.png` });
}

/** axe-core's serious and critical violations on the page as it stands, one line each (rule: where). */
async function violations(): Promise<string[]> {
  // Evaluated over the DevTools protocol: the dashboard's CSP refuses an injected <script>.
  if (!(await page.evaluate(() => !!(globalThis as any).axe))) await page.evaluate(AXE);
  return page.evaluate(async () => {
    const result = await (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
      .map((v: any) => `${v.id}: ${v.nodes.map((n: any) => `${n.target.join(' ')} (${n.failureSummary?.split('\n')[1]?.trim() ?? ''})`).join(', ')}`);
  });
}

/** Waits for the screen's title, then (a while) for its loaders to go: the screen has its data. */
async function settled(title: string) {
  await page
    .waitForFunction((t: string) => (globalThis as any).document.title === t, { timeout: 45_000 }, title)
    .catch(async () => {
      throw new Error(`${page.url()}: title ${JSON.stringify(await page.title())}, expected ${JSON.stringify(title)}`);
    });
  // Some screens keep a loader of their own (a preview compiling): what is shown after 10 s is checked.
  await page.waitForFunction(() => !(globalThis as any).document.querySelector('.mantine-Loader-root'), { timeout: 10_000 }).catch(() => undefined);
  // Transitions (a drawer, a fade-in) end before axe reads colours.
  await new Promise((r) => setTimeout(r, 300));
}

it('every screen: a title of its own, the skip link first, no serious or critical axe violation', async () => {
  // The sign-up screen, before anyone signs in.
  await page.goto(`${s.api.url}/app/signup`, { waitUntil: 'load' });
  await settled('Sign up');
  const found: Record<string, string[]> = { 'Sign up': await violations() };
  const signedUp = await s.signUp(PROJECT);
  projectId = signedUp.projectId;
  key = bearer(signedUp.secretKey);

  // Something to show on the screens that list things.
  const contact = (
    await h.http
      .post('/contacts')
      .set(key)
      .send({ email: testEmail('axe'), data: { plan: 'pro' } })
  ).body;
  const created = await h.http.post('/workflows').set(key).send({ name: 'Welcome', eventName: 'signed.up' });
  expect(created.status).toBe(201);
  const workflow = created.body;

  const screens: Array<[string, string]> = [
    ['', 'Setup'],
    ['contacts', 'Contacts'],
    [`contacts/${contact.id}`, `${contact.email} · Contacts`],
    ['suppressions', 'Suppressions'],
    ['inbound', 'Inbound'],
    ['templates', 'Templates'],
    ['templates/new', 'New template'],
    ['campaigns', 'Campaigns'],
    ['campaigns/new', 'New campaign'],
    ['analytics', 'Analytics'],
    ['segments', 'Segments'],
    ['segments/new', 'New segment'],
    ['topics', 'Topics'],
    ['forms', 'Forms'],
    ['forms/new', 'New form'],
    ['workflows', 'Workflows'],
    [`workflows/${workflow.id}`, 'Workflow'],
    [`workflows/${workflow.id}/executions`, 'Workflow runs'],
    ['activity', 'Activity'],
    ['events', 'Events'],
    ['domains', 'Domains'],
    ['keys', 'API keys'],
    ['team', 'Team'],
    ['audit', 'Audit log'],
    ['settings', 'Settings'],
    ['webhooks', 'Webhooks'],
  ];
  for (const [where, screen] of screens) {
    await page.goto(`${s.api.url}/app/p/${projectId}/${where}`, { waitUntil: 'load' });
    await settled(`${screen} · ${PROJECT}`);
    found[screen] = await violations();
  }
  for (const [where, title] of [
    ['account', 'Account'],
    ['account/two-factor', 'Two-factor authentication'],
    ['new-project', 'New project'],
    ['no-such-screen', 'Page not found'],
  ]) {
    await page.goto(`${s.api.url}/app/${where}`, { waitUntil: 'load' });
    await settled(title);
    found[title] = await violations();
  }
  expect(Object.entries(found).filter(([, v]) => v.length)).toEqual([]);

  // The skip link: the first stop of the Tab key, and it moves the focus to the screen's content.
  await page.goto(`${s.api.url}/app/p/${projectId}/contacts`, { waitUntil: 'load' });
  await settled(`Contacts · ${PROJECT}`);
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => (globalThis as any).document.activeElement?.textContent)).toBe('Skip to content');
  await page.keyboard.press('Enter');
  expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('main');
  expect(s.problems).toEqual([]);
}, 600_000);

it('Suppressions: one address, a CSV of them, a removal the audit log records', async () => {
  await page.goto(`${s.api.url}/app/p/${projectId}/suppressions`, { waitUntil: 'load' });
  await s.waitForText('No suppressed addresses');
  const one = testEmail('one');
  await s.replace('Email address', one);
  await s.click('Suppress address');
  await s.waitForText(`${one} is suppressed`);

  // A CSV with a header row, a name column, the address already listed, and a line without one.
  const [a, b] = [testEmail('csv-a'), testEmail('csv-b')];
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-csv-')), 'blocked.csv');
  fs.writeFileSync(file, `name,email\nAda,${a}\nBob,"${b.toUpperCase()}"\nAgain,${one}\nnobody,\n`);
  const input = (await page.waitForSelector('input[type="file"]'))!;
  await (input as any).uploadFile(file);
  await s.click('Suppress addresses in file');
  await s.waitForText('From the file: 2 added, 1 already on the list, 2 lines without an address skipped.');
  const listed = (await h.http.get('/suppressions').set(key)).body.data.map((e: { email: string }) => e.email).sort();
  expect(listed).toEqual([one, a, b].sort());
  await s.replace('Search', 'csv-b');
  await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('table[aria-label="Suppressions"] tbody tr').length === 1, {
    timeout: 45_000,
  });
  await photograph('suppressions');

  await s.click(`Remove ${b}`);
  await page.waitForSelector(`${DIALOG} ::-p-aria([name="Close"][role="button"])`, { timeout: 45_000 });
  await s.clickOn(`${DIALOG} ::-p-aria([name="Remove from suppressions"][role="button"])`);
  await s.waitForText('No suppressed address matches');
  // Audited: who added and who removed, as the Audit log screen lists them.
  const actions = await h.deps.knex('audit_log').where({ project_id: projectId }).pluck('action');
  expect(actions.filter((a: string) => a.startsWith('suppression.')).sort()).toEqual(['suppression.add', 'suppression.add', 'suppression.remove']);
  expect(s.problems).toEqual([]);
}, 240_000);

it('Inbound: a reply with its parsed headers and the contact it matched', async () => {
  await verifiedDomain(h, projectId, VERIFIED);
  await page.goto(`${s.api.url}/app/p/${projectId}/inbound`, { waitUntil: 'load' });
  await s.waitForText('Nothing received yet');

  const from = testEmail('writer');
  const t = nodemailer.createTransport({ host: '127.0.0.1', port: inbound.port, secure: false, ignoreTLS: true });
  const to = `hello@inbound.${VERIFIED}`;
  await t.sendMail({ envelope: { from, to: [to] }, raw: reply({ from, to, subject: 'A question about pricing', text: 'Do you ship to Lyon?' }) });
  t.close();

  await page.reload({ waitUntil: 'load' });
  await s.waitForText('A question about pricing');
  const [row] = await page.$$eval('table[aria-label="Inbound mail"] tbody tr', (rows) => rows.map((r) => (r as any).innerText.replace(/\s+/g, ' ')));
  expect(row).toMatch(new RegExp(`Message ${from.replace(/\./g, '\\.')} A question about pricing ${from.replace(/\./g, '\\.')}`, 'i'));
  await s.click('A question about pricing');
  await page.waitForSelector('table[aria-label="Headers"]', { timeout: 45_000 });
  const headers = await page.$$eval('table[aria-label="Headers"] tbody tr', (rows) => rows.map((r) => (r as any).innerText.replace(/\s+/g, ' ').trim()));
  expect(headers).toEqual(expect.arrayContaining(['Subject A question about pricing', `To ${to}`]));
  expect(await page.$eval(DIALOG, (d) => (d as any).innerText)).toContain('SPF');
  await photograph('inbound');
  // The dialog's fade-in ends before axe reads its colours (mid-transition they are blended).
  await new Promise((r) => setTimeout(r, 600));
  expect(await violations()).toEqual([]);
  // The contact it matched opens its page.
  await s.clickOn(`${DIALOG} ::-p-aria([name="${from}"][role="link"])`);
  await page.waitForFunction((t: string) => (globalThis as any).document.title === t, { timeout: 45_000 }, `${from} · Contacts · ${PROJECT}`);
  expect(s.problems).toEqual([]);
}, 240_000);

it('Domains: the SPF of the SMTP relay, a sentence per record not found, "Verify now" says what it found, "Delete domain"', async () => {
  const added = (await h.http.post('/domains').set(key).send({ domain: PENDING })).body;
  const spf = added.records.find((r: { purpose: string }) => r.purpose === 'spf');
  // The relay is the sink on 127.0.0.1: its address, no SendGrid include.
  expect(spf.value).toBe('v=spf1 ip4:127.0.0.1 ~all');
  const ownership = added.records.find((r: { purpose: string }) => r.purpose === 'ownership');
  dns.set(ownership.name, 'TXT', [ownership.value]);
  dns.set(PENDING, 'TXT', ['v=spf1 include:sendgrid.net ~all']);

  await page.goto(`${s.api.url}/app/p/${projectId}/domains`, { waitUntil: 'load' });
  await s.waitForText(PENDING);
  expect(await page.$eval('body', (b) => (b as any).innerText)).not.toContain('sendgrid');
  const inCard = async (name: string) => s.clickOn(`section[aria-label="${PENDING}"] ::-p-aria([name="${name}"][role="button"])`);
  await inCard('Verify now');
  await s.waitForText('Checked just now:');
  const outcome = await page.$eval('[data-testid="verify-outcome"]', (e) => (e as any).innerText as string);
  expect(outcome).toMatch(/^Checked just now: 1 of \d+ records found\. Still missing: SPF, DKIM\./);
  expect(outcome).toContain(`${PENDING} stays pending`);
  const problems = await page.$$eval('[data-testid="record-problem"]', (ps) => ps.map((p) => (p as any).innerText as string));
  expect(problems).toEqual(
    expect.arrayContaining([
      `The SPF record at ${PENDING} ("v=spf1 include:sendgrid.net ~all") does not carry ip4:127.0.0.1: add it before the final all term, as in the value shown.`,
      expect.stringMatching(/^No TXT record was found at .*_domainkey/),
    ]),
  );
  await photograph('domains');
  expect(await violations()).toEqual([]);

  await inCard('Delete domain');
  await s.waitForText(`Delete ${PENDING}?`);
  await s.clickOn(`${DIALOG} ::-p-aria([name="Delete domain"][role="button"])`);
  await page.waitForFunction(
    (d: string) =>
      !(globalThis as any).document.body.innerText.includes(`Delete ${d}?`) && !(globalThis as any).document.querySelector(`section[aria-label="${d}"]`),
    { timeout: 45_000 },
    PENDING,
  );
  expect((await h.http.get(`/domains/project/${projectId}`).set(key)).body.map((d: { domain: string }) => d.domain)).toEqual([VERIFIED]);
  expect(s.problems).toEqual([]);
}, 240_000);

it('the dark theme follows the system until the switch says otherwise', async () => {
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
  await page.evaluate(() => (globalThis as any).localStorage.removeItem('svc-mail-color-scheme'));
  await page.reload({ waitUntil: 'load' });
  const scheme = () => page.evaluate(() => (globalThis as any).document.documentElement.getAttribute('data-mantine-color-scheme'));
  await page.waitForFunction(() => (globalThis as any).document.documentElement.getAttribute('data-mantine-color-scheme') === 'dark', { timeout: 45_000 });
  await s.waitForText('Dark theme');
  expect(await violations()).toEqual([]);
  await page.evaluate(() => {
    const inputs = [...(globalThis as any).document.querySelectorAll('input[role="switch"]')] as any[];
    inputs.find((i) => i.closest('.mantine-Switch-root')?.textContent.includes('Dark theme')).click();
  });
  await page.waitForFunction(() => (globalThis as any).document.documentElement.getAttribute('data-mantine-color-scheme') === 'light', { timeout: 45_000 });
  // The choice outlives a reload although the system still prefers dark.
  await page.reload({ waitUntil: 'load' });
  await s.waitForText('Dark theme');
  expect(await scheme()).toBe('light');
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
}, 120_000);
