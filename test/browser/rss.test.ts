import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'puppeteer-core';
import { bearer, eventually, Harness } from '../helpers/harness';
import { openDashboard, DashboardSession, testEmail } from '../helpers/dashboardSession';
import { startSmtpSink, SmtpSink } from '../helpers/smtpSink';
import { verifiedDomain } from '../helpers/fixtures';

/**
 * An RSS campaign on the dashboard in a real headless Chromium against the real app and worker: made
 * on "New RSS campaign" (feed URL, template, weekly schedule, audience, archive), activated, run with
 * "Send now" against a local feed server (WEBHOOK_ALLOW_PRIVATE lets the SSRF guard pass loopback, as
 * in test/integration/rssCampaigns.test.ts), its run shown with its items and emails sent, then
 * paused, resumed and cancelled; the email it sent is on the project's public archive page.
 */

let s: DashboardSession;
let h: Harness;
let page: Page;
let sink: SmtpSink;
let feed: http.Server;
let feedUrl: string;
const DOMAIN = 'blog.example.com';

const RSS = `<?xml version="1.0"?><rss version="2.0"><channel><title>Blog</title><link>https://${DOMAIN}</link><description>d</description>
<item><title>Launch week</title><link>https://${DOMAIN}/launch</link><description>What shipped</description><pubDate>${new Date('2026-11-02T10:00:00Z').toUTCString()}</pubDate></item>
<item><title>Hello world</title><link>https://${DOMAIN}/hello</link><description>The first post</description><pubDate>${new Date('2026-11-01T10:00:00Z').toUTCString()}</pubDate></item>
</channel></rss>`;

beforeAll(async () => {
  sink = await startSmtpSink();
  feed = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/rss+xml' }).end(RSS));
  await new Promise<void>((r) => feed.listen(0, '127.0.0.1', r));
  feedUrl = `http://127.0.0.1:${(feed.address() as AddressInfo).port}/feed.xml`;
  s = await openDashboard({ harness: { worker: true }, env: { EMAIL_TRANSPORT: 'smtp', SMTP_URL: sink.url, WEBHOOK_ALLOW_PRIVATE: 'true' } });
  ({ h, page } = s);
}, 300_000);
afterAll(async () => {
  await s?.close();
  await sink?.stop();
  await new Promise((r) => feed?.close(r));
});

/** `RSS_SCREENSHOTS=1` photographs the screens into docs/img (docs/campaigns.md shows them). */
async function photograph(name: string) {
  if (process.env.RSS_SCREENSHOTS) await page.screenshot({ path: `docs/img/${name}.png`, fullPage: true });
}

const statusIs = (status: string) => page.waitForSelector(`[data-testid="campaign-status"]::-p-text(${status})`, { timeout: 60_000 });

it('creates an RSS campaign, activates it, sends it now and shows the run, pauses, resumes and cancels it', async () => {
  const { projectId, secretKey } = await s.signUp('RSS project');
  await verifiedDomain(h, projectId, DOMAIN);
  const reader = testEmail('reader');
  expect((await h.http.post('/contacts').set(bearer(secretKey)).send({ email: reader })).status).toBe(201);
  const template = await h.http
    .post('/templates')
    .set(bearer(secretKey))
    .send({
      name: 'Weekly digest',
      subject: 'New on the blog',
      from: `news@${DOMAIN}`,
      body: '<h1>New on the blog</h1>{% for item in items %}<h2><a href="{{ item.link }}">{{ item.title }}</a></h2><p>{{ item.summary }}</p>{% endfor %}',
    });
  expect(template.status).toBe(201);

  await s.click('Campaigns', 'link');
  await s.click('New RSS campaign', 'link');
  await s.replace('Name', 'Blog digest');
  await s.replace('Feed URL', feedUrl);
  await s.choose('Template', 'Weekly digest');
  await s.choose('Day', 'Friday');
  // The browser's own zone is picked, even one the zone list lacks.
  const zone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
  expect(await page.$eval(await s.inputId('Time zone'), (el) => (el as any).value)).toBe(zone);
  // Mantine's switch input is visually hidden: clicked through the DOM, as its label would.
  await (await page.waitForSelector('::-p-aria([name="Archive"][role="switch"])'))!.evaluate((el) => (el as any).click());
  await photograph('dashboard-rss-new');
  await s.click('Create RSS campaign');
  await page.waitForFunction(() => /\/campaigns\/[0-9a-f-]{36}$/.test((globalThis as any).location.pathname), { timeout: 45_000 });
  const id = page.url().split('/').pop()!;
  await statusIs('Draft');
  expect((await h.http.get(`/campaigns/${id}`).set(bearer(secretKey))).body).toMatchObject({
    kind: 'RSS',
    feedUrl,
    template: template.body.id,
    archive: true,
    schedule: { frequency: 'weekly', time: '09:00', weekday: 5 },
  });
  await s.waitForText('Weekly on Friday at 09:00');
  await s.waitForText('No run yet');

  await s.click('Activate');
  await statusIs('Scheduled');
  await s.click('Send now');
  await s.waitForText('The RSS campaign runs now.');
  // The run appears with its items, then its email goes out and the count follows.
  await page.waitForSelector('[data-testid="rss-run"]', { timeout: 60_000 });
  await s.waitForText('2 new items', 60_000);
  await s.waitForText('Launch week');
  await page.waitForSelector('[data-testid="rss-run-sent"]::-p-text(1)', { timeout: 60_000 });
  const mail = await eventually(async () => sink.mailsTo(reader)[0], 60_000);
  expect(String((await sink.parse(mail)).html)).toContain('Launch week');
  await photograph('dashboard-rss-campaign');

  await s.click('Pause');
  await statusIs('Paused');
  await s.click('Resume');
  await statusIs('Scheduled');
  await s.click('Cancel campaign');
  const dialog = await page.waitForSelector('[role="dialog"]');
  await (await dialog!.waitForSelector('::-p-aria([name="Cancel campaign"][role="button"])'))!.click();
  await statusIs('Cancelled');
  expect((await h.http.get(`/campaigns/${id}`).set(bearer(secretKey))).body.status).toBe('CANCELLED');

  // The list marks it, with its schedule.
  await s.click('Campaigns', 'link');
  await s.waitForText('Weekly on Friday at 09:00');

  // The email the run sent is public (the campaign's Archive switch): the archive page lists it.
  const [run] = (await h.http.get(`/campaigns/${id}/runs`).set(bearer(secretKey))).body.data;
  await eventually(async () => (await h.http.get(`/campaigns/${run.sentCampaignId}`).set(bearer(secretKey))).body.status === 'SENT', 60_000);
  const { slug } = await h.deps.knex('projects').where({ id: projectId }).first('slug');
  await page.goto(`${s.api.url}/archive/${slug}`, { waitUntil: 'load' });
  await s.waitForText('New on the blog');
  await photograph('archive-page');
  expect(s.problems).toEqual([]);
}, 300_000);
