import type { Page } from 'puppeteer-core';
import { bearer, Harness } from '../helpers/harness';
import { openDashboard, DashboardSession, testEmail as email } from '../helpers/dashboardSession';

/**
 * The filter builder (web/src/components/FilterBuilder.tsx) on the Segments screen, in a real headless
 * Chromium against the real app: a condition built field by field with its live count (POST
 * /contacts/count), a refused condition's error on the node the API names, the segment saved and
 * listed with its count, which equals POST /segments/:id/refresh.
 */

let s: DashboardSession;
let h: Harness;
let page: Page;
/** The first test's contacts (pro, pro, free), which the second one pastes into a static segment. */
const contacts: string[] = [];
/** The first test's project's secret key. */
let key = '';

beforeAll(async () => {
  s = await openDashboard();
  ({ h, page } = s);
}, 300_000);
afterAll(async () => s?.close());

const waitForText = (text: string, timeout?: number) => s.waitForText(text, timeout);
const typeInto = (label: string, value: string, scope?: string) => s.replace(label, value, scope);
const choose = (label: string, option: string, scope?: string) => s.choose(label, option, scope);
const click = (name: string, role?: string) => s.click(name, role);

const row = (path: string) => `[data-filter-path="${path}"]`;

/** Picks "all" or "any" in the builder's top "Match … of these" control. */
async function logic(which: 'all' | 'any') {
  const label = await page.waitForFunction(
    (w: string) => [...(globalThis as any).document.querySelectorAll('[data-tree-path="(root)"] label')].find((l: any) => l.textContent.trim() === w) ?? null,
    { timeout: 45_000 },
    which,
  );
  await (label as any).click();
}

/** Waits until the live count has settled on `n` for the tree as it is now. */
async function countIs(n: number) {
  try {
    await page.waitForSelector(`[data-testid="matching-count"][data-count="${n}"][data-current="yes"]`, { timeout: 45_000 });
  } catch {
    const shown = await page.evaluate(() => (globalThis as any).document.querySelector('[aria-label="Matching contacts"]')?.innerText ?? '(no count)');
    throw new Error(`the live count is not ${n}: ${shown}\n${s.problems.join('\n')}`);
  }
}

/** `SEGMENT_SCREENSHOTS=1` also photographs the screens into docs/img (scripts/dashboardScreenshots.ts does the others). */
async function photograph(name: string) {
  if (process.env.SEGMENT_SCREENSHOTS) await page.screenshot({ path: `docs/img/dashboard-${name}.png`, fullPage: true });
}

it('builds a condition with a live count, shows a refused node, saves the segment and lists it with its count', async () => {
  // Sign up and create a project, as a newcomer does.
  await page.goto(`${s.api.url}/app/signup`, { waitUntil: 'load' });
  await typeInto('Email', email('segments'));
  await typeInto('Password', 'correct horse battery');
  await click('Sign up');
  await typeInto('Project name', 'Segments project');
  await click('Create project');
  await waitForText('Setup checklist');
  key = await page.$eval('[data-testid="full-secret-key"]', (el) => el.textContent!);
  for (const [tag, data] of [
    ['pro-a', { plan: 'pro', score: 10 }],
    ['pro-b', { plan: 'pro', score: 7 }],
    ['free', { plan: 'free', score: 3 }],
  ] as const) {
    contacts.push(email(tag));
    expect(
      (
        await h.http
          .post('/contacts')
          .set(bearer(key))
          .send({ email: contacts[contacts.length - 1], data })
      ).status,
    ).toBe(201);
  }

  expect((await h.http.post('/events/track').set(bearer(key)).send({ email: contacts[0], event: 'upgraded' })).status).toBe(200);

  await click('Segments', 'link');
  await waitForText('No segments yet');
  await click('New segment', 'link');
  await typeInto('Name', 'Pro users');

  // The starting filter (email contains "") matches everyone.
  await page.waitForSelector('[aria-label="Matching contacts"]');
  await countIs(3);

  // data.plan is one of the project's typed fields; "pro" narrows the count.
  const first = row('groups.0.filters.0');
  await choose('Field', 'data.plan', first);
  await choose('Operator', 'is', first);
  await typeInto('Value', 'pro', first);
  await countIs(2);

  // A second filter, numeric: AND score > 8.
  await click('Add filter');
  const second = row('groups.0.filters.1');
  await choose('Field', 'data.score', second);
  await choose('Operator', 'is greater than', second);
  await typeInto('Value', '8', second);
  await countIs(1);
  // "any": the tree's logic joins the filters of a group too (plan is pro OR score > 8).
  await logic('any');
  await countIs(2);
  await logic('all');
  await countIs(1);

  // An event of GET /events/names as a field: "has happened" takes no value.
  await choose('Field', 'event.upgraded', second);
  await choose('Operator', 'has happened', second);
  await page.waitForFunction((s: string) => !(globalThis as any).document.querySelector(s)?.innerText.includes('Value'), { timeout: 45_000 }, second);
  await countIs(1);
  // In a window: at least N times (default 3 in 30 days: none), then once; "did not … within" (pro-b).
  await choose('Operator', 'happened at least (times) within the last', second);
  await countIs(0);
  await typeInto('Times', '1', second);
  await countIs(1);
  await choose('Operator', 'did not happen within the last', second);
  await countIs(1);

  // A date field with no date: the API refuses the node, and the builder shows why on its Value input.
  await choose('Field', 'createdAt', second);
  await page.waitForFunction(
    (s: string) => (globalThis as any).document.querySelector(s)?.innerText.includes('expected an ISO date'),
    { timeout: 45_000 },
    second,
  );
  expect(await page.$eval(`${second} input[aria-invalid="true"]`, (el) => (el as any).type)).toBe('date');
  expect(await page.$eval(first, (el) => (el as any).innerText)).not.toContain('expected');
  await waitForText('This condition is refused');
  await photograph('segment-builder');

  // Removed again: back to the plan filter alone, saved.
  await s.clickOn(`${second} ::-p-aria([name="Remove filter"][role="button"])`);
  await countIs(2);
  await click('Create segment');
  await page.waitForFunction(() => /\/segments\/(?!new$)[^/]+$/.test((globalThis as any).location.pathname), { timeout: 45_000 });
  const segmentId = page.url().split('/').pop()!;
  await waitForText('2 members now');

  // Edited: the condition changed on the saved segment (PATCH) recounts it.
  await typeInto('Value', 'free', first);
  await countIs(1);
  await click('Save segment');
  await waitForText('Saved');
  await page.waitForSelector('[data-testid="cached-count"]::-p-text(1)', { timeout: 45_000 });
  await waitForText('1 member now');

  // Listed with its count, which is what refresh counts.
  await click('← Segments', 'link');
  await page.waitForSelector('table[aria-label="Segments"]', { timeout: 45_000 });
  await photograph('segments');
  const listed = await page.$eval('table[aria-label="Segments"]', (t) => (t as any).innerText as string);
  expect(listed).toContain('Pro users');
  expect(await page.$eval('[data-testid="member-count"]', (el) => el.textContent)).toBe('1');
  const refreshed = await h.http.post(`/segments/${segmentId}/refresh`).set(bearer(key));
  expect(refreshed.body).toEqual({ memberCount: 1 });
  const saved = await h.http.get(`/segments/${segmentId}`).set(bearer(key));
  expect(saved.body.condition).toEqual({ logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'free' }] }] });
  expect(s.problems).toEqual([]);
}, 180_000);

it('a static segment: pasted addresses added and removed, renamed, refreshed and computed, deleted after a confirmation', async () => {
  await click('Segments', 'link');
  await click('New segment', 'link');
  await typeInto('Name', 'VIP list');
  await s.clickOn('::-p-text(Static: a list you manage)');
  // A static segment has no condition to build.
  await page.waitForFunction(() => !(globalThis as any).document.querySelector('[aria-label="Matching contacts"]'), { timeout: 45_000 });
  await click('Create segment');
  await waitForText('No members yet');

  // Pasted addresses: two contacts of the project and one unknown address.
  const emails = contacts.slice(0, 2);
  await typeInto('Addresses', `${emails[0]}, ${emails[1]}\nnobody@example.test`);
  await waitForText('3 addresses');
  await click('Add members');
  await waitForText('2 added; no contact for nobody@example.test.');
  await waitForText('2 members now');
  expect(await page.$eval('table[aria-label="Segment members"]', (t) => (t as any).innerText)).toContain(emails[0]);
  await typeInto('Addresses', emails[0]);
  await click('Remove members');
  await waitForText('1 removed.');
  await waitForText('1 member now');
  await photograph('segment-static');

  // Edit: renamed (only the changed field is sent), then Refresh and Compute say what they counted.
  await typeInto('Name', 'VIP customers');
  await click('Save segment');
  await page.waitForSelector('::-p-aria([name="VIP customers"][role="heading"])', { timeout: 45_000 });
  await click('Refresh');
  await waitForText('Refreshed: 1 member.');
  await click('Compute');
  await waitForText('Computed: 1 member, 0 entered, 0 exited.');

  // Delete, confirmed: back on the list, which no longer has it.
  await click('Delete');
  await waitForText('Delete this segment?');
  await click('Delete segment');
  await page.waitForSelector('table[aria-label="Segments"]', { timeout: 45_000 });
  await page.waitForFunction(() => !(globalThis as any).document.querySelector('table[aria-label="Segments"]').innerText.includes('VIP'), { timeout: 45_000 });
  expect(await page.$eval('table[aria-label="Segments"]', (t) => (t as any).innerText)).toContain('Pro users');
  expect(s.problems).toEqual([]);
}, 120_000);

it('tracking membership: Compute (a Temporal run) reports who entered', async () => {
  // Compute of a tracked segment runs the segmentCompute workflow.
  await h.startWorker();
  await click('Pro users', 'link');
  await waitForText('1 member now');
  // Mantine's switch input is visually hidden: its label is what a person clicks.
  const track = await page.waitForFunction(
    () => [...(globalThis as any).document.querySelectorAll('label')].find((l: any) => l.textContent.trim().startsWith('Track membership')) ?? null,
    { timeout: 45_000 },
  );
  await (track as any).click();
  await click('Save segment');
  await waitForText('Saved');
  await click('Compute');
  await waitForText('Computed: 1 member, 1 entered, 0 exited.', 60_000);
  expect(s.problems).toEqual([]);
}, 120_000);

it("pages a segment's members by the cursor of the page before (keyset at any depth), not by OFFSET", async () => {
  const many = Array.from({ length: 45 }, (_, i) => email(`member-${i}`));
  const created = await h.http.post('/segments').set(bearer(key)).send({ name: 'Many members', type: 'STATIC' });
  expect(created.status).toBe(201);
  const id = created.body.data?.id ?? created.body.id;
  expect((await h.http.post(`/segments/${id}/members`).set(bearer(key)).send({ emails: many, createMissing: true })).status).toBe(200);
  const projectId = /\/p\/([^/]+)\//.exec(page.url())![1];
  const asked: string[] = [];
  const seen = (r: { url(): string }) => {
    if (r.url().includes(`/segments/${id}/contacts`)) asked.push(new URL(r.url()).search);
  };
  page.on('request', seen);
  try {
    await page.goto(`${s.api.url}/app/p/${projectId}/segments/${id}`, { waitUntil: 'load' });
    const rows = () => page.$$eval('table[aria-label="Segment members"] tbody tr', (trs) => trs.length);
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('table[aria-label="Segment members"] tbody tr').length === 20, {
      timeout: 45_000,
    });
    for (const n of ['2', '3']) {
      await s.clickOn(`section ::-p-aria([name="${n}"][role="button"])`);
      await page.waitForFunction(
        (k: number) => (globalThis as any).document.querySelectorAll('table[aria-label="Segment members"] tbody tr').length === k,
        { timeout: 45_000 },
        n === '3' ? 5 : 20,
      );
    }
    expect(await rows()).toBe(5);
    // The first page by number; the next two each by the cursor the page before handed out.
    expect(asked[0]).toMatch(/[?&]page=1\b/);
    expect(asked.slice(1)).toHaveLength(2);
    for (const q of asked.slice(1)) {
      expect(q).toMatch(/[?&]cursor=/);
      expect(q).not.toMatch(/[?&]page=/);
    }
  } finally {
    page.off('request', seen);
  }
  expect(s.problems).toEqual([]);
}, 120_000);
