import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'puppeteer-core';
import { bearer, eventually, Harness } from '../helpers/harness';
import { openDashboard, DashboardSession } from '../helpers/dashboardSession';
import { contactId } from '../../lib/ids';

/**
 * The contacts list in a real headless Chromium against the real app and worker: a saved view
 * (filter and columns, saved, listed in the side panel, reopened), "Select all N matching" then
 * "Unsubscribe selected" over 2,500 contacts with the job's progress, and "Export CSV" of the view
 * downloaded by the browser. ("Add contact" and editing a contact are test/browser/screens.test.ts.)
 */

let s: DashboardSession;
let h: Harness;
let page: Page;
const PRO = 2500;
const FREE = 5;
const DIALOG = '[role="dialog"]';

beforeAll(async () => {
  s = await openDashboard({ harness: { worker: true } });
  ({ h, page } = s);
}, 300_000);
afterAll(async () => s?.close());

const headers = () =>
  page.$$eval('table[aria-label="Contacts"] thead th', (ths) => ths.map((t) => (t as unknown as { innerText: string }).innerText.trim()).filter(Boolean));
const totalShown = (n: string) => s.waitForText(`${n} contacts`, 30_000);

it('saves a view, reopens it, unsubscribes all 2,500 matching and exports the view', async () => {
  const { projectId, secretKey } = await s.signUp('List project');
  const key = bearer(secretKey);
  // Through the API, so the fields are registered with their types (the Columns menu and the filter offer them).
  for (let i = 0; i < FREE; i++) {
    expect(
      (
        await h.http
          .post('/contacts')
          .set(key)
          .send({ email: `free-${i}@list.test`, data: { plan: 'free', score: i } })
      ).status,
    ).toBe(201);
  }
  // The 2,500 straight into the table: through the API they would be the slow part of the test.
  const pro = Array.from({ length: PRO }, (_, i) => ({
    id: contactId(),
    project_id: projectId,
    email: `pro-${String(i).padStart(4, '0')}@list.test`,
    subscribed: true,
    data: JSON.stringify({ plan: 'pro', score: 100 + i }),
  }));
  for (let i = 0; i < pro.length; i += 1000) await h.deps.knex('contacts').insert(pro.slice(i, i + 1000));

  await page.goto(`${s.api.url}/app/p/${projectId}/contacts`, { waitUntil: 'load' });
  await totalShown((PRO + FREE).toLocaleString('en-US'));

  // A filter: data.plan is "pro".
  await s.click('Filter');
  const first = '[data-filter-path="groups.0.filters.0"]';
  await s.choose('Field', 'data.plan', first);
  await s.choose('Operator', 'is', first);
  await s.replace('Value', 'pro', first);
  await s.click('Apply filter');
  await totalShown(PRO.toLocaleString('en-US'));

  // Columns: "Created" off, "plan" and "score" on.
  await s.click('Columns');
  await s.click('Created', 'checkbox');
  await s.click('plan', 'checkbox');
  await s.click('score', 'checkbox');
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => (globalThis as any).document.querySelector('table[aria-label="Contacts"] thead')?.innerText.includes('score'), {
    timeout: 45_000,
  });
  expect(await headers()).toEqual(['Email', 'Subscribed', 'plan', 'score']);

  // "Save view": it appears in the side panel, and the API has it for the whole project.
  await s.click('Save view');
  await s.replace('View name', 'Pro plan', DIALOG);
  await s.click('Save');
  await page.waitForSelector('nav[aria-label="Saved views"] ::-p-aria([name="Pro plan"][role="button"])', { timeout: 45_000 });
  const views = (await h.http.get('/contact-views').set(key)).body.data;
  expect(views).toEqual([
    expect.objectContaining({
      name: 'Pro plan',
      columns: ['email', 'subscribed', 'data.plan', 'data.score'],
      filter: expect.objectContaining({ logic: 'AND' }),
    }),
  ]);

  // "All contacts" forgets the filter and columns; reopening the view brings both back.
  await s.click('All contacts');
  await totalShown((PRO + FREE).toLocaleString('en-US'));
  expect(await headers()).toEqual(['Email', 'Subscribed', 'Created']);
  await s.click('Pro plan');
  await totalShown(PRO.toLocaleString('en-US'));
  expect(await headers()).toEqual(['Email', 'Subscribed', 'plan', 'score']);
  await page.screenshot({ path: 'docs/img/dashboard-contacts-view.png' });

  // "Select all 2,500 matching", then "Unsubscribe selected": one job over the whole filter.
  await s.clickOn('::-p-aria([name="Select all on this page"][role="checkbox"])');
  await s.click(`Select all ${PRO.toLocaleString('en-US')} matching`);
  await s.waitForText(`${PRO.toLocaleString('en-US')} selected`);
  await s.click('Unsubscribe selected');
  // The job's progress moves: a status "Unsubscribing: N of 2,500" with 0 < N < 2,500 is seen before it ends.
  const statuses = new Set<string>();
  await eventually(
    async () => {
      const text = await page.$eval('[data-testid="bulk-status"]', (el) => el.textContent ?? '').catch(() => '');
      statuses.add(text);
      return text.startsWith('Done');
    },
    280_000,
    100,
  );
  expect([...statuses].some((t) => /Unsubscribing: [1-9][\d,]* of 2,500/.test(t) && !t.includes('2,500 of'))).toBe(true);
  await s.waitForText(`Done: ${PRO.toLocaleString('en-US')} contacts unsubscribed`);
  const unsubscribed = await h.deps.knex('contacts').where({ project_id: projectId, subscribed: false }).pluck('email');
  expect(unsubscribed.sort()).toEqual(pro.map((c) => c.email).sort());
  expect((await h.http.post('/contacts/search').set(key).send({ subscribed: true })).body.total).toBe(FREE);
  const jobs = await h.deps.knex('jobs').where({ project_id: projectId, type: 'BULK_UNSUBSCRIBE' }).select('total', 'succeeded');
  expect(jobs).toEqual([{ total: PRO, succeeded: PRO }]);

  // "Export CSV" of the view: its filter and columns; the browser downloads the file.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'contacts-export-'));
  const cdp = await page.createCDPSession();
  await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: dir });
  await s.click('Export CSV');
  // The job writes 2,500 lines in batches: longer than a click's usual wait on a loaded machine.
  await s.clickOn('::-p-aria([name="Download CSV"][role="button"])', 240_000);
  const file = await eventually(async () => fs.readdirSync(dir).find((f) => f.endsWith('.csv')), 60_000);
  const [header, ...lines] = fs.readFileSync(path.join(dir, file), 'utf8').trim().split(/\r?\n/);
  expect(header).toBe('email,subscribed,data.plan,data.score');
  expect(lines.sort()).toEqual(pro.map((c, i) => `${c.email},false,pro,${100 + i}`).sort());
  fs.rmSync(dir, { recursive: true, force: true });
  expect(s.problems).toEqual([]);
}, 600_000);
