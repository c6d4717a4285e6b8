import type { Page } from 'puppeteer-core';
import { bearer, eventually, Harness } from '../helpers/harness';
import { openDashboard, DashboardSession, testEmail as email } from '../helpers/dashboardSession';
import { startSendgridSink, SendgridSink } from '../helpers/sendgridSink';
import { verifiedDomain } from '../helpers/fixtures';

/**
 * The campaign screens in a real headless Chromium against the real app and worker, delivering to a
 * SendGrid stand-in: a campaign composed (template, sender from a verified domain, code editor,
 * filter builder with its live count), test-sent, sent to its filtered audience after a confirmation
 * naming the count, its progress and report (opens, clicks, links, the chart's table view); another
 * paced one paused, resumed and cancelled (confirmed); the list by status; the Analytics page.
 */

let s: DashboardSession;
let h: Harness;
let page: Page;
let sink: SendgridSink;
let key: string;
let projectId: string;
/** Subscribed pro contacts: the filtered audience. */
const pros: string[] = [];

const DOMAIN = 'news.example.com';
const BROWSER_UA = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';

beforeAll(async () => {
  sink = await startSendgridSink();
  s = await openDashboard({ harness: { worker: true }, env: { EMAIL_TRANSPORT: 'sendgrid', SENDGRID_API_KEY: 'SG.test-key', SENDGRID_API_URL: sink.url } });
  ({ h, page } = s);
}, 300_000);
afterAll(async () => {
  await s?.close();
  await sink?.stop();
});

/** `CAMPAIGN_SCREENSHOTS=1` also photographs the screens into docs/img. */
async function photograph(name: string) {
  if (!process.env.CAMPAIGN_SCREENSHOTS) return;
  // The whole page in a viewport as tall as it (a full-page capture would draw the fixed header mid-page),
  // after the charts have redrawn at that size.
  const height = await page.evaluate(() => (globalThis as any).document.documentElement.scrollHeight as number);
  await page.setViewport({ width: 1280, height: Math.max(900, height) });
  await new Promise((r) => setTimeout(r, 800));
  await page.screenshot({ path: `docs/img/dashboard-${name}.png` });
  await page.setViewport({ width: 1280, height: 900 });
}

const statusIs = (status: string) => page.waitForSelector(`[data-testid="campaign-status"]::-p-text(${status})`, { timeout: 60_000 });
const text = (selector: string) => page.$eval(selector, (el) => (el as any).innerText as string);
/** Sets a native date-time input as a person picking a value would (typing into one depends on the locale). */
async function setDateTime(label: string, value: string) {
  await page.$eval(
    await s.inputId(label),
    (el, v) => {
      const g = globalThis as any;
      Object.getOwnPropertyDescriptor(g.HTMLInputElement.prototype, 'value')!.set!.call(el, v);
      el.dispatchEvent(new g.Event('input', { bubbles: true }));
    },
    value,
  );
}
const campaignDeliveries = (id: string) => sink.recipients().filter((r) => r.customArgs.campaign_id === id);

it('composes a campaign, test-sends it, sends it to a filtered audience after a confirmation naming the count, and shows its progress and report', async () => {
  ({ projectId, secretKey: key } = await s.signUp('Campaigns project'));
  await verifiedDomain(h, projectId, DOMAIN);
  for (const [tag, data, subscribed] of [
    ['pro-a', { plan: 'pro' }, true],
    ['pro-b', { plan: 'pro' }, true],
    ['pro-c', { plan: 'pro' }, true],
    ['pro-gone', { plan: 'pro' }, false],
    ['free', { plan: 'free' }, true],
  ] as const) {
    const address = email(tag);
    if (subscribed && data.plan === 'pro') pros.push(address);
    expect((await h.http.post('/contacts').set(bearer(key)).send({ email: address, data, subscribed })).status).toBe(201);
  }
  const template = await h.http
    .post('/templates')
    .set(bearer(key))
    .send({ name: 'Welcome', subject: 'Welcome aboard', body: '<p>Welcome</p>', from: `hello@${DOMAIN}`, fromName: 'The team', type: 'MARKETING' });
  expect(template.status).toBe(201);

  await s.click('Campaigns', 'link');
  await s.waitForText('No campaigns yet');
  await s.click('New campaign', 'link');
  await s.replace('Name', 'Spring sale');
  // A template's content and sender are copied in; then the subject and body are the campaign's own.
  await s.choose('Start from a template', 'Welcome');
  await page.waitForFunction(() => (globalThis as any).document.querySelector('[data-testid="preview-subject"]')?.textContent === 'Welcome aboard', {
    timeout: 45_000,
  });
  expect(await page.$eval(await s.inputId('From'), (el) => (el as any).value)).toBe('hello');
  await s.replace('From', 'news');
  await s.choose('Domain', DOMAIN);
  await s.replace('Subject', 'Spring sale for {{ email }}');
  await s.replaceCode('Body', '<p>Hello!</p><p><a href="https://shop.example/sale">See the sale</a></p>');
  await page.waitForFunction(() => (globalThis as any).document.querySelector('[data-testid="preview-subject"]')?.textContent.startsWith('Spring sale for'), {
    timeout: 45_000,
  });

  // The audience: a filter, with its live count (the unsubscribed pro is matched by the filter; sending leaves it out).
  await s.click('A filter', 'radio');
  const first = '[data-filter-path="groups.0.filters.0"]';
  await s.choose('Field', 'data.plan', first);
  await s.choose('Operator', 'is', first);
  await s.replace('Value', 'pro', first);
  await page.waitForSelector('[data-testid="matching-count"][data-count="4"][data-current="yes"]', { timeout: 45_000 });
  await photograph('campaign-composer');
  await s.click('Save draft');
  await page.waitForFunction(() => /\/campaigns\/(?!new$)[0-9a-f-]{36}$/.test((globalThis as any).location.pathname), { timeout: 45_000 });
  const id = page.url().split('/').pop()!;
  await s.waitForText('Draft');
  const draft = (await h.http.get(`/campaigns/${id}`).set(bearer(key))).body;
  expect(draft).toMatchObject({
    status: 'DRAFT',
    from: `news@${DOMAIN}`,
    fromName: 'The team',
    subject: 'Spring sale for {{ email }}',
    audienceType: 'FILTERED',
  });
  expect(draft.audienceCondition).toEqual({ logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] });

  // A test send: "[Test] " before the subject, and the campaign's numbers do not move.
  const tester = email('tester');
  await s.click('Send test');
  await s.replace('Send to', tester);
  await s.click('Send');
  await s.waitForText(`Test email sent to ${tester}`);
  const test = await eventually(async () => sink.recipients().find((r) => r.email === tester), 60_000);
  expect(test.subject).toBe(`[Test] Spring sale for ${tester}`);
  await s.click('Close');

  // Sending asks first, naming the number of recipients the audience holds now.
  await s.click('Send now');
  await page.waitForSelector('[data-testid="send-confirmation"]', { timeout: 45_000 });
  expect(await text('[data-testid="send-confirmation"]')).toBe('Spring sale goes to 3 contacts now.');
  await photograph('campaign-send-confirm');
  await s.click('Send to 3 contacts');

  // Progress follows the API until everything is handed over.
  await statusIs('Sent');
  await page.waitForSelector('[data-testid="campaign-progress"]::-p-text(3 of 3 sent)', { timeout: 45_000 });
  expect(new Set(campaignDeliveries(id).map((r) => r.email))).toEqual(new Set(pros));
  expect(campaignDeliveries(id).every((r) => r.subject === `Spring sale for ${r.email}`)).toBe(true);

  // Two recipients open it, one clicks the link (first-party tracking on the app's own URL).
  const paths = (html: string, kind: 'o' | 'c') => [...html.matchAll(new RegExp(`(/t/${kind}/[^"'\\s>]+)`, 'g'))].map((m) => m[1].replace(/&amp;/g, '&'));
  const [a, b] = campaignDeliveries(id);
  for (const path of [...paths(a.html, 'o'), ...paths(a.html, 'c'), ...paths(b.html, 'o')])
    expect((await h.http.get(path).set('User-Agent', BROWSER_UA).redirects(0)).status).toBeLessThan(400);
  await eventually(async () => {
    const st = (await h.http.get(`/campaigns/${id}/stats`).set(bearer(key))).body;
    return st.opened === 2 && st.clicked === 1;
  }, 60_000);

  await page.reload({ waitUntil: 'load' });
  await page.waitForSelector('[data-testid="stat-sent"]', { timeout: 45_000 });
  expect(await text('[data-testid="stat-sent"]')).toBe('3');
  expect(await text('[data-testid="stat-opened"]')).toBe('2');
  expect(await text('[data-testid="stat-clicked"]')).toBe('1');
  expect(await text('[role="group"][aria-label="Opened"]')).toContain('66.7% of sent');
  await page.waitForSelector('table[aria-label="Links"]', { timeout: 45_000 });
  expect(await text('table[aria-label="Links"]')).toContain('https://shop.example/sale');
  // The chart is a picture named by its totals; its table view holds the same numbers.
  await page.waitForSelector('[role="img"][aria-label="Sends, opens and clicks over time: Sent 3, Opened 2, Clicked 1"]', { timeout: 45_000 });
  await page.waitForSelector('.recharts-surface', { timeout: 45_000 });
  await photograph('campaign-report');
  await s.click('Table', 'tab');
  const rows = await page.$$eval('table[aria-label="Sends, opens and clicks over time"] tbody tr', (trs) =>
    trs.map((tr) => [...(tr as any).cells].slice(1).map((c: any) => Number(c.innerText))),
  );
  expect(rows.reduce((sum, r) => [sum[0] + r[0], sum[1] + r[1], sum[2] + r[2]], [0, 0, 0])).toEqual([3, 2, 1]);

  // Duplicate: a new draft in the composer.
  await s.click('Duplicate');
  await s.waitForText('Spring sale (copy)');
  await page.waitForFunction((old: string) => !(globalThis as any).location.pathname.endsWith(old), { timeout: 45_000 }, id);
  await s.waitForText('Draft');
  const copyId = page.url().split('/').pop()!;

  // Scheduled at a date-time in a chosen time zone: the API gets that instant.
  await s.click('At a date and time', 'radio');
  await setDateTime('Date and time', '2030-01-15T09:30');
  await s.choose('Time zone', 'Asia/Tokyo');
  await s.click('Schedule');
  await page.waitForSelector('[data-testid="send-confirmation"]::-p-text(goes to 3 contacts at 2030-01-15 09:30 (Asia/Tokyo))', { timeout: 45_000 });
  await s.click('Schedule for 3 contacts');
  await statusIs('Scheduled');
  expect((await h.http.get(`/campaigns/${copyId}`).set(bearer(key))).body).toMatchObject({ status: 'SCHEDULED', scheduledFor: '2030-01-15T00:30:00.000Z' });
  await s.waitForText('Scheduled for');
  expect(s.problems).toEqual([]);
}, 300_000);

it('pauses, resumes and cancels a paced campaign, each state as the API reports it', async () => {
  // Paced at one email a minute: the first goes at once, the rest wait.
  const created = await h.http
    .post('/campaigns')
    .set(bearer(key))
    .send({ name: 'Slow news', subject: 'Slow', body: '<p>x</p>', from: `news@${DOMAIN}`, audienceType: 'ALL', sendRatePerMinute: 1 });
  expect(created.status).toBe(201);
  const id = created.body.data.id as string;
  await page.goto(`${s.api.url}/app/p/${projectId}/campaigns/${id}`, { waitUntil: 'load' });
  await s.waitForText('Slow news');
  expect(await page.$eval(await s.inputId('Send rate (emails per minute)'), (el) => (el as any).value)).toBe('1');
  await s.click('Send now');
  // All four subscribed contacts (the unsubscribed one is left out).
  await page.waitForSelector('[data-testid="send-confirmation"]::-p-text(goes to 4 contacts now)', { timeout: 45_000 });
  await s.click('Send to 4 contacts');
  await statusIs('Sending');
  // Some of four handed over, not all: the pace holds the rest.
  await page.waitForFunction(() => /^[123] of 4 sent/.test((globalThis as any).document.querySelector('[data-testid="campaign-progress"]')?.innerText ?? ''), {
    timeout: 60_000,
  });

  await s.click('Pause');
  await statusIs('Paused');
  expect((await h.http.get(`/campaigns/${id}`).set(bearer(key))).body.status).toBe('PAUSED');
  await s.waitForText('paused: nothing more goes out until you resume');
  await photograph('campaign-progress');

  // A refusal is shown, not swallowed: resumed meanwhile through the API (the page's poll held back
  // so it still shows PAUSED), Resume here answers 409 and the page says the API's words.
  const campaignGet = (r: import('puppeteer-core').HTTPRequest) => r.method() === 'GET' && new URL(r.url()).pathname === `/campaigns/${id}`;
  const hold = (r: import('puppeteer-core').HTTPRequest) => void (campaignGet(r) ? r.abort() : r.continue());
  await page.setRequestInterception(true);
  page.on('request', hold);
  try {
    expect((await h.http.post(`/campaigns/${id}/resume`).set(bearer(key))).status).toBe(200);
    await s.click('Resume');
    await s.waitForText('Only a PAUSED campaign can be resumed; this one is SENDING');
  } finally {
    page.off('request', hold);
    await page.setRequestInterception(false);
  }
  await statusIs('Sending');
  await s.click('Pause');
  await statusIs('Paused');
  await s.click('Resume');
  await statusIs('Sending');

  await s.click('Cancel campaign');
  await s.waitForText('No further email of Slow news goes out');
  const dialog = await page.waitForSelector('[role="dialog"]');
  await (await dialog!.waitForSelector('::-p-aria([name="Cancel campaign"][role="button"])'))!.click();
  await statusIs('Cancelled');
  expect((await h.http.get(`/campaigns/${id}`).set(bearer(key))).body.status).toBe('CANCELLED');
  expect(await page.$('::-p-aria([name="Pause"][role="button"])')).toBeNull();
  expect(campaignDeliveries(id).length).toBeLessThan(4);

  // The list by status: the PAUSED tab is there, the cancelled one under Cancelled.
  await s.click('← Campaigns', 'link');
  await s.click('Paused', 'tab');
  await s.waitForText('No campaign matches');
  await s.click('Cancelled', 'tab');
  await page.waitForSelector('table[aria-label="Campaigns"]', { timeout: 45_000 });
  expect(await text('table[aria-label="Campaigns"]')).toContain('Slow news');
  await s.click('All', 'tab');
  await s.replace('Search', 'spring');
  await page.waitForFunction(() => !(globalThis as any).document.querySelector('table[aria-label="Campaigns"]')?.innerText.includes('Slow news'), {
    timeout: 45_000,
  });
  await photograph('campaigns');
  expect(s.problems).toEqual([]);
}, 300_000);

it('shows analytics: the series with their totals, top campaigns and top events, each with a table view', async () => {
  expect((await h.http.post('/events/track').set(bearer(key)).send({ email: pros[0], event: 'purchased' })).status).toBe(200);
  await s.click('Analytics', 'link');
  await page.waitForSelector('[data-testid="total-sent"]', { timeout: 30_000 });
  const api = (await h.http.get('/analytics/timeseries').query({ metric: 'sent', interval: 'day' }).set(bearer(key))).body;
  expect(Number(await text('[data-testid="total-sent"]'))).toBe(api.total);
  expect(api.total).toBeGreaterThan(0);
  await page.waitForSelector('table[aria-label="Campaign rates"]', { timeout: 45_000 });
  expect(await text('table[aria-label="Campaign rates"]')).toContain('Spring sale');
  // Each rate with the counts it is made of, and what it counts under its name.
  expect(await text('table[aria-label="Campaign rates"]')).toMatch(/66\.7%\s*2 of 3/);
  expect(await text('table[aria-label="Campaign rates"]')).toContain('opened at least once, of those sent');
  await eventually(async () => (await h.http.get('/analytics/top-events').set(bearer(key))).body.data.length > 0, 30_000);
  await page.reload({ waitUntil: 'load' });
  await page.waitForSelector('[role="img"][aria-label^="Top events"]', { timeout: 30_000 });
  await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('.recharts-line, .recharts-bar-rectangle').length >= 6, { timeout: 45_000 });
  await photograph('analytics');
  expect(await page.$$eval('[role="tab"]', (tabs) => tabs.filter((t) => (t as any).innerText === 'Table').length)).toBe(3);
  expect(s.problems).toEqual([]);
}, 180_000);

it("composes a campaign from blocks with the email editor's components; the server stores the HTML compiled from them", async () => {
  const fx = await s.signUp('Block campaigns');
  await verifiedDomain(h, fx.projectId, DOMAIN);
  await s.click('Campaigns', 'link');
  await s.click('New campaign', 'link');
  await s.replace('Name', 'Blocks issue');
  await s.replace('From', 'news');
  await s.choose('Domain', DOMAIN);
  await s.replace('Subject', 'Our blocks issue');
  // The "Blocks" / "HTML" switch (a segmented control: its options are labels).
  await page.evaluate(() => [...(globalThis as any).document.querySelectorAll('label')].find((l: any) => l.textContent.trim() === 'Blocks').click());
  await s.click('Add heading block');
  await s.click('Add footer block');
  // The preview is the server's MJML compile of the document.
  await page.waitForFunction(() => ((globalThis as any).document.querySelector('iframe[title="Preview"]')?.srcdoc ?? '').includes('role="presentation"'), {
    timeout: 30_000,
  });
  await s.click('Save draft');
  await page.waitForFunction(() => /\/campaigns\/(?!new$)[0-9a-f-]{36}$/.test((globalThis as any).location.pathname), { timeout: 45_000 });
  const id = page.url().split('/').pop()!;
  const saved = (await h.http.get(`/campaigns/${id}`).set(bearer(fx.secretKey))).body;
  expect(saved.editor).toBe('blocks');
  expect(saved.document.blocks.map((b: { type: string }) => b.type)).toEqual(['heading', 'footer']);
  expect(saved.body).toMatch(/<table[^>]*role="presentation"/);
  expect(saved.body).toContain('{{ unsubscribeUrl }}');
  expect(s.problems).toEqual([]);
}, 180_000);
