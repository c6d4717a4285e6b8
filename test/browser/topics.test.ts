import type { Page } from 'puppeteer-core';
import { bearer, Harness } from '../helpers/harness';
import { verifiedDomain } from '../helpers/fixtures';
import { openDashboard, DashboardSession } from '../helpers/dashboardSession';

/**
 * The Topics and Audit log screens in a real headless Chromium against the real app: a topic
 * created, edited, refused deletion while a campaign names it (the API's 409 shown), deleted; then
 * the audit log lists those changes, filtered by action and paged.
 */

let s: DashboardSession;
let h: Harness;
let page: Page;
let project: { projectId: string; secretKey: string };
const DOMAIN = 'topics-ui.example.com';
const DIALOG = '[role="dialog"]';

beforeAll(async () => {
  s = await openDashboard();
  ({ h, page } = s);
}, 300_000);
afterAll(async () => s?.close());

/** `TOPICS_SCREENSHOTS=1` photographs the screens into docs/img (docs/dashboard.md shows them). */
async function photograph(name: string) {
  if (process.env.TOPICS_SCREENSHOTS) await page.screenshot({ path: `docs/img/dashboard-${name}.png`, fullPage: true });
}

const rowsOf = (table: string) =>
  page.$$eval(`table[aria-label="${table}"] tbody tr`, (rows) =>
    rows.map((r) => (r as unknown as { innerText: string }).innerText.replace(/\s+/g, ' ').trim()),
  );

it('creates, edits and deletes a topic; a topic a campaign names is refused with the API message', async () => {
  project = await s.signUp('Topics project');
  await verifiedDomain(h, project.projectId, DOMAIN);

  await s.click('Topics', 'link');
  await s.waitForText('No topics yet');
  await s.replace('Name', 'Product news', '[aria-label="New topic"]');
  await s.replace('Description', 'What we ship, monthly', '[aria-label="New topic"]');
  await s.click('Create topic');
  await s.waitForText('product-news');
  expect(await rowsOf('Topics')).toEqual([expect.stringMatching(/^Product news What we ship, monthly product-news Not subscribed Listed/i)]);

  // The slug is taken: the API's 409 shows under the form.
  await s.replace('Name', 'Other', '[aria-label="New topic"]');
  await s.replace('Slug', 'product-news', '[aria-label="New topic"]');
  await s.click('Create topic');
  await s.waitForText('Not created');
  expect(await rowsOf('Topics')).toHaveLength(1);

  await s.click('Edit Product news');
  await s.replace('Name', 'Product updates', DIALOG);
  // Mantine's switch input is visually hidden; the dialog's own is clicked (the form behind has one too).
  await page.evaluate(() => {
    const dialog = (globalThis as any).document.querySelector('[role="dialog"]');
    const inputs = [...dialog.querySelectorAll('input[role="switch"]')] as any[];
    inputs.find((i) => i.closest('.mantine-Switch-root')?.textContent.includes('Subscribed by default')).click();
  });
  await s.click('Save topic');
  await s.waitForText('Product updates');
  await page.waitForFunction(() => !(globalThis as any).document.querySelector('[role="dialog"]'), { timeout: 45_000 });
  expect(await rowsOf('Topics')).toEqual([expect.stringMatching(/^Product updates .* product-news Subscribed Listed/i)]);
  await photograph('topics');

  // A draft campaign sent as the topic keeps it: the delete is refused, and the dialog says why.
  const key = bearer(project.secretKey);
  const topicId = (await h.http.get('/topics').set(key)).body.data[0].id;
  const campaign = await h.http
    .post('/campaigns')
    .set(key)
    .send({ name: 'Autumn', subject: 'S', body: '<p>b</p>', from: `news@${DOMAIN}`, audienceType: 'ALL', topic: topicId });
  expect(campaign.status).toBe(201);
  await s.click('Delete Product updates');
  await s.click('Delete topic');
  await s.waitForText('is still used by campaign "Autumn"');
  await photograph('topic-delete-refused');
  await s.click('Cancel');
  expect(await rowsOf('Topics')).toHaveLength(1);

  expect((await h.http.delete(`/campaigns/${campaign.body.data.id}`).set(key)).status).toBe(204);
  await s.click('Delete Product updates');
  await s.click('Delete topic');
  await s.waitForText('No topics yet');
  expect(s.problems).toEqual([]);
});

it('lists the audit log newest first, filters it by action and pages it', async () => {
  // Enough entries for a second page (25 a page): settings changes by the secret key.
  const key = bearer(project.secretKey);
  for (let i = 0; i < 26; i++)
    expect(
      (
        await h.http
          .patch('/settings')
          .set(key)
          .send({ timezone: i % 2 ? 'UTC' : 'Europe/Paris' })
      ).status,
    ).toBe(200);

  await s.click('Audit log', 'link');
  await s.waitForText('Changed the settings');
  // project.create, topic.create and topic.update, campaign.create and campaign.delete by the key, topic.delete
  // by the signed-in user (through the dashboard), then 26 settings changes: 32.
  await s.waitForText('32 entries');
  const first = await rowsOf('Audit log');
  expect(first).toHaveLength(25);
  expect(first[0]).toContain('The secret key');

  await s.click('2', 'button');
  await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('table[aria-label="Audit log"] tbody tr').length === 7, { timeout: 45_000 });
  const second = await rowsOf('Audit log');
  await photograph('audit-log');
  expect(second[1]).toMatch(/Deleted topic \S+ Deleted a topic Topic/);
  expect(second[1]).toContain('newcomer-');
  expect(second[2]).toMatch(/The secret key Deleted campaign/);
  // Names are read when the log is listed: the project by its name; the deleted topic by the name its create entry kept.
  expect(second[3]).toMatch(/The secret key Created campaign Autumn Created a campaign Autumn Campaign \S+ Name: Autumn/);
  expect(second[4]).toMatch(/Changed topic \S+ \(.*\) Changed a topic/);
  // The fields the edit changed by their labels, not the request body's names (defaultSubscribed).
  expect(second[4]).toMatch(/Changed: .*Subscribed by default/);
  expect(second[5]).toMatch(/Created topic Product news Created a topic Product news Topic \S+ Name: Product news Slug: product-news/);
  expect(second[6]).toMatch(/Created project Topics project Created the project Topics project Project \S+ Name: Topics project/);
  // Words, never the server's codes: no action code, no target type code, no JSON until asked for.
  for (const row of second) expect(row).not.toMatch(/\b[a-z_]+\.(create|update|delete)\b|[{}"]/);

  await s.choose('Action', 'Deleted a campaign');
  await s.waitForText('1 entry');
  expect(await rowsOf('Audit log')).toEqual([expect.stringMatching(/The secret key Deleted campaign \S+ Deleted a campaign Campaign/)]);
  expect(s.problems).toEqual([]);
});

it('sets retention on the Settings screen, and the audit log names who did', async () => {
  await s.click('Settings', 'link');
  await s.replace('Events (days)', '30', '[aria-label="Retention"]');
  await s.click('Save retention');
  await s.waitForText('Saved.');
  expect((await h.http.get('/settings').set(bearer(project.secretKey))).body.retention).toEqual({ emailBodiesDays: null, eventsDays: 30, inboundDays: null });
  await s.click('Audit log', 'link');
  await s.waitForText('33 entries');
  expect((await rowsOf('Audit log'))[0]).toMatch(
    /newcomer-.* Changed the settings \(Retention\) Changed the settings Settings Changed: Retention Show raw details/,
  );
  // The stored JSON, for operators, one click away.
  await page.click('table[aria-label="Audit log"] tbody tr:first-child summary');
  await page.waitForFunction(
    () => (globalThis as any).document.querySelector('table[aria-label="Audit log"] tbody tr details[open]')?.textContent.includes('"retention"'),
    {
      timeout: 45_000,
    },
  );
  expect((await rowsOf('Audit log'))[0]).toMatch(/Show raw details \{ "changed": \[ "retention" \] \}/);

  // A refused attempt (as api/projectAccess.ts writes it; jsonb keeps keys shortest first): the permission in words, the route tried as written, in monospace.
  await h.deps.knex('audit_log').insert({
    project_id: project.projectId,
    actor: 'system',
    action: 'access.denied',
    target_type: 'domain',
    target_id: null,
    details: JSON.stringify({ action: 'POST /domains', permission: 'domains.manage', role: 'MEMBER', route: 'POST /domains' }),
  });
  await page.goto(`${s.api.url}/app/p/${project.projectId}/audit`, { waitUntil: 'load' });
  await s.waitForText('34 entries');
  expect((await rowsOf('Audit log'))[0]).toMatch(
    /Refused \(role member\): Manage domains \(POST \/domains\) .* Role: member Route: POST \/domains Attempted: POST \/domains Permission: Manage domains Show raw details/,
  );
  const codes = await page.$$eval('table[aria-label="Audit log"] tbody tr:first-child code', (cs) => cs.map((c) => c.textContent));
  expect(codes).toEqual(['POST /domains', 'POST /domains']);
  expect(s.problems).toEqual([]);
});

it('a member sees no Audit log link, and the address tells them the log is for owners and admins', async () => {
  const email = `member-${Date.now()}@example.test`;
  const signup = await h.http.post('/auth/signup').send({ email, password: 'correct horse battery' });
  expect(signup.status).toBe(201);
  await h.deps.knex('project_members').insert({ project_id: project.projectId, user_id: signup.body.id, role: 'MEMBER' });
  await s.click('Log out');
  await page.waitForFunction(() => (globalThis as any).location.pathname === '/app/login', { timeout: 45_000 });
  await s.waitForText('New here?');
  await s.replace('Email', email);
  await s.replace('Password', 'correct horse battery');
  await s.click('Log in');
  await page.waitForFunction(() => (globalThis as any).location.pathname !== '/app/login', { timeout: 45_000 });
  await page.goto(`${s.api.url}/app/p/${project.projectId}/audit`, { waitUntil: 'load' });
  await s.waitForText('Owners and admins only');
  const links = await page.$$eval('nav[aria-label="Project"] a', (as) => as.map((a) => (a as unknown as { innerText: string }).innerText.trim()));
  expect(links).toContain('Topics');
  expect(links).not.toContain('Audit log');

  // Webhooks, domains and settings: the member sees them, without the buttons the server would refuse (docs/roles.md).
  expect(
    (
      await h.http
        .post('/webhook-endpoints')
        .set(bearer(project.secretKey))
        .send({ url: 'https://hooks.example.com/m', events: ['*'] })
    ).status,
  ).toBe(201);
  await s.click('Webhooks', 'link');
  await s.waitForText('Owners and admins manage webhook endpoints');
  await s.waitForText('https://hooks.example.com/m');
  const buttons = async () => page.$$eval('main button', (bs) => bs.map((b) => (b as unknown as { innerText: string }).innerText.trim()));
  expect(await buttons()).toEqual(expect.arrayContaining(['Send test']));
  for (const hidden of ['Add endpoint', 'Edit', 'Rotate secret', 'Delete']) expect(await buttons()).not.toContain(hidden);
  await s.click('Domains', 'link');
  await s.waitForText('Owners and admins add and remove domains');
  expect(await buttons()).not.toContain('Add domain');
  await s.click('Settings', 'link');
  await s.waitForText('Owners and admins change these settings.');
  expect(await buttons()).not.toContain('Save retention');
  expect(await buttons()).not.toContain('Save sending settings');
  expect(s.problems).toEqual([]);
});
