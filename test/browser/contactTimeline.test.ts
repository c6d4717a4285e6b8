import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'puppeteer-core';
import { bearer, eventually, Harness } from '../helpers/harness';
import { openDashboard, DashboardSession, testEmail as email } from '../helpers/dashboardSession';
import { startSendgridSink, SendgridSink } from '../helpers/sendgridSink';
import { verifiedDomain } from '../helpers/fixtures';

/**
 * A contact's timeline (an email, an event and a topic change; the kind filter; the email's content
 * in a dialog) and a campaign's live report in a real headless Chromium: after "Send now" the tiles
 * and the recipients table move without a reload, and the click map shows a recorded click on the
 * email's preview, with the links' table beside it.
 */

let s: DashboardSession;
let h: Harness;
let page: Page;
let sink: SendgridSink;
let key: string;
let projectId: string;
const DOMAIN = 'people.example.com';
const BROWSER_UA = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';

beforeAll(async () => {
  sink = await startSendgridSink();
  s = await openDashboard({ harness: { worker: true }, env: { EMAIL_TRANSPORT: 'sendgrid', SENDGRID_API_KEY: 'SG.test-key', SENDGRID_API_URL: sink.url } });
  ({ h, page } = s);
  ({ projectId, secretKey: key } = await s.signUp('People project'));
  await verifiedDomain(h, projectId, DOMAIN);
}, 300_000);
afterAll(async () => {
  await s?.close();
  await sink?.stop();
});

/** `TIMELINE_SCREENSHOTS=1` also photographs the screens into docs/img. */
async function photograph(name: string) {
  if (!process.env.TIMELINE_SCREENSHOTS) return;
  const height = await page.evaluate(() => (globalThis as any).document.documentElement.scrollHeight as number);
  await page.setViewport({ width: 1280, height: Math.max(900, height) });
  await new Promise((r) => setTimeout(r, 500));
  await page.screenshot({ path: `docs/img/dashboard-${name}.png` });
  await page.setViewport({ width: 1280, height: 900 });
}

const AXE = fs.readFileSync(path.join(__dirname, '..', '..', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

/** axe-core's serious and critical violations on the page as it stands (as test/browser/accessibility.test.ts reads them). */
async function violations(): Promise<string[]> {
  // Transitions (the dialog's fade-in) end before axe reads colours.
  await new Promise((r) => setTimeout(r, 400));
  if (!(await page.evaluate(() => !!(globalThis as any).axe))) await page.evaluate(AXE);
  return page.evaluate(async () => {
    const result = await (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
      .map((v: any) => `${v.id}: ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`);
  });
}

const text = (selector: string) => page.$eval(selector, (el) => (el as any).innerText as string);
const timelineKinds = () => page.$$eval('[aria-label="Contact timeline"] [data-kind]', (els) => els.map((e) => e.getAttribute('data-kind')));

it("shows a contact's timeline: an email with its content one click away, an event and a topic change, filtered by kind", async () => {
  const person = email('timeline');
  const sent = await h.http
    .post('/v1/send')
    .set(bearer(key))
    .send({
      from: `hello@${DOMAIN}`,
      to: person,
      subject: 'Your receipt',
      body: '<p>Thank you for <strong>order 42</strong>.</p>',
    });
  expect(sent.status).toBe(200);
  const contactId = sent.body.data.emails[0].contact.id as string;
  await eventually(async () => (await h.deps.knex('emails').where({ id: sent.body.data.emails[0].email }).first())?.status === 'SENT', 60_000);
  expect(
    (
      await h.http
        .post('/events/track')
        .set(bearer(key))
        .send({ email: person, event: 'order_paid', data: { total: 42 } })
    ).status,
  ).toBe(200);
  expect((await h.http.post('/topics').set(bearer(key)).send({ name: 'Receipts' })).status).toBe(201);
  expect(
    (
      await h.http
        .patch(`/contacts/${contactId}`)
        .set(bearer(key))
        .send({ topics: { receipts: true } })
    ).status,
  ).toBe(200);

  await page.goto(`${s.api.url}/app/p/${projectId}/contacts/${contactId}`, { waitUntil: 'load' });
  await page.waitForSelector('[aria-label="Contact timeline"]', { timeout: 45_000 });
  await s.waitForText('Email “Your receipt” sent');
  await s.waitForText('Event order_paid');
  await s.waitForText('Subscribed to topic “Receipts”');
  expect(await timelineKinds()).toEqual(expect.arrayContaining(['email', 'event', 'topic']));
  // Where the change came from, in words (the consent record's source `api`).
  expect(await text('[aria-label="Contact timeline"] [data-kind="topic"]')).toContain('through the API');
  // Every time names its zone.
  const firstTime = await text('[aria-label="Contact timeline"] [data-kind="email"]');
  expect(firstTime).toMatch(/\d{2}:\d{2} [A-Za-z_]+(\/[A-Za-z_]+)*/);
  await photograph('contact-timeline');
  expect(await violations()).toEqual([]);

  // The kind filter: topics only.
  await page.evaluate(() => [...(globalThis as any).document.querySelectorAll('label')].find((l: any) => l.textContent.trim() === 'Topics').click());
  await page.waitForFunction(
    () => {
      const kinds = [...(globalThis as any).document.querySelectorAll('[aria-label="Contact timeline"] [data-kind]')].map((e: any) =>
        e.getAttribute('data-kind'),
      );
      return kinds.length === 1 && kinds[0] === 'topic';
    },
    { timeout: 45_000 },
  );
  await page.evaluate(() => [...(globalThis as any).document.querySelectorAll('label')].find((l: any) => l.textContent.trim() === 'Emails').click());
  await page.waitForFunction(
    () =>
      [...(globalThis as any).document.querySelectorAll('[aria-label="Contact timeline"] [data-kind]')].every(
        (e: any) => e.getAttribute('data-kind') === 'email',
      ),
    { timeout: 45_000 },
  );

  // The email as it was sent, in the sandboxed frame.
  await s.click('Open email: Your receipt');
  const frame = await page.waitForSelector('[role="dialog"] iframe[title="Preview"]', { timeout: 45_000 });
  await page.waitForFunction((f: any) => (f.getAttribute('srcdoc') ?? '').includes('order 42'), { timeout: 45_000 }, frame);
  expect(await frame!.evaluate((f: any) => f.getAttribute('sandbox'))).toBe('');
  expect(await text('[role="dialog"] [data-testid="preview-subject"]')).toBe('Your receipt');
  await photograph('contact-email-content');
  expect(await violations()).toEqual([]);
  await s.click('Close');

  // "Load more": 30 more events make two pages of 25.
  for (let i = 0; i < 30; i++)
    expect(
      (
        await h.http
          .post('/events/track')
          .set(bearer(key))
          .send({ email: person, event: `step_${i}` })
      ).status,
    ).toBe(200);
  await page.reload({ waitUntil: 'load' });
  await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('[aria-label="Contact timeline"] [data-kind]').length === 25, {
    timeout: 45_000,
  });
  await s.click('Load more');
  await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('[aria-label="Contact timeline"] [data-kind]').length > 25, {
    timeout: 45_000,
  });
  await s.waitForText('Email “Your receipt” sent');

  // The address itself is editable; one another contact has is refused on the field.
  const taken = email('taken');
  expect((await h.http.post('/contacts').set(bearer(key)).send({ email: taken })).status).toBe(201);
  await s.click('Edit email');
  await s.replace('Email', taken);
  await s.click('Save email');
  await page.waitForSelector('[role="dialog"] input[aria-invalid="true"]', { timeout: 45_000 });
  const renamed = email('renamed');
  await s.replace('Email', renamed);
  await s.click('Save email');
  await page.waitForSelector(`h1::-p-text(${renamed})`, { timeout: 45_000 });
  expect((await h.http.get(`/contacts/${contactId}`).set(bearer(key))).body.email).toBe(renamed);
  expect(s.problems).toEqual([]);
}, 180_000);

it('moves the live report after "Send now" without a reload, and shows the clicks on the click map and in the links table', async () => {
  const people = [email('live-a'), email('live-b')];
  for (const address of people)
    expect(
      (
        await h.http
          .post('/contacts')
          .set(bearer(key))
          .send({ email: address, data: { cohort: 'live' } })
      ).status,
    ).toBe(201);
  const created = await h.http
    .post('/campaigns')
    .set(bearer(key))
    .send({
      name: 'Live report',
      subject: 'Fresh news',
      body: '<p>News</p><p><a href="https://shop.example/sale">See the sale</a> or <a href="https://shop.example/blog">read the blog</a></p>',
      from: `news@${DOMAIN}`,
      audienceType: 'FILTERED',
      audienceCondition: { logic: 'AND', groups: [{ filters: [{ field: 'data.cohort', operator: 'equals', value: 'live' }] }] },
    });
  expect(created.status).toBe(201);
  const id = created.body.data.id as string;
  await page.goto(`${s.api.url}/app/p/${projectId}/campaigns/${id}`, { waitUntil: 'load' });
  await s.waitForText('Live report');
  await s.click('Send now');
  await page.waitForSelector('[data-testid="send-confirmation"]::-p-text(goes to 2 contacts now)', { timeout: 45_000 });
  await s.click('Send to 2 contacts');

  // No reload from here on: the tiles and the recipients table follow the API by themselves.
  await page.waitForFunction(() => (globalThis as any).document.querySelector('[data-testid="stat-sent"]')?.innerText === '2', { timeout: 60_000 });
  await page.waitForFunction(() => (globalThis as any).document.querySelector('[role="region"][aria-label="Recipients"] table tbody')?.rows.length === 2, {
    timeout: 60_000,
  });
  for (const address of people) expect(await text('[role="region"][aria-label="Recipients"]')).toContain(address);

  // One reader clicks the sale link (first-party tracking on the app's own URL); the report moves.
  const delivered = sink.recipients().filter((r) => r.customArgs.campaign_id === id);
  expect(delivered).toHaveLength(2);
  const clickPaths = [...delivered[0].html.matchAll(/(\/t\/c\/[^"'\s>]+)/g)].map((m) => m[1].replace(/&amp;/g, '&'));
  expect(clickPaths).toHaveLength(2);
  // The first tracked link of the body is the sale.
  expect((await h.http.get(clickPaths[0]).set('User-Agent', BROWSER_UA).redirects(0)).status).toBeLessThan(400);
  await page.waitForFunction(() => (globalThis as any).document.querySelector('[data-testid="stat-clicked"]')?.innerText === '1', { timeout: 60_000 });

  // The click map: the sale link carries its badge, the blog link none clicked; the table says the same.
  await page.waitForSelector('table[aria-label="Links"]', { timeout: 60_000 });
  const map = await page.waitForSelector('iframe[title="Click map"]', { timeout: 45_000 });
  await page.waitForFunction((f: any) => (f.getAttribute('srcdoc') ?? '').includes('data-click-badge="1"'), { timeout: 30_000 }, map);
  const srcdoc = (await map!.evaluate((f: any) => f.getAttribute('srcdoc'))) as string;
  expect(srcdoc).toMatch(/See the sale<\/a><span data-click-badge="1"[^>]*>1 click · 1 person<\/span>/);
  expect(srcdoc).toMatch(/read the blog<\/a><span data-click-badge="0"[^>]*>0 clicks<\/span>/);
  expect(await map!.evaluate((f: any) => f.getAttribute('sandbox'))).toBe('');
  const rows = await page.$$eval('table[aria-label="Links"] tbody tr', (trs) => trs.map((tr) => [...(tr as any).cells].map((c: any) => c.innerText)));
  expect(rows).toEqual([['https://shop.example/sale', '1', '1']]);
  await photograph('campaign-click-map');
  expect(await violations()).toEqual([]);
  expect(s.problems).toEqual([]);
}, 240_000);
