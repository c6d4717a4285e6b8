import type { Page } from 'puppeteer-core';
import { createProjectFixture, Harness } from '../helpers/harness';
import { openDashboard, DashboardSession } from '../helpers/dashboardSession';

/**
 * "Added by <email>" (docs/roles.md "Added, and told"): a person someone else added to a project sees
 * who did, on the project's home and under its name in the project list; their own project says nothing.
 */

let s: DashboardSession;
let h: Harness;
let page: Page;

beforeAll(async () => {
  s = await openDashboard({ viewport: { width: 1280, height: 800 } });
  ({ h, page } = s);
}, 300_000);
afterAll(async () => s?.close());

const shownText = () => page.evaluate(() => (globalThis as any).document.body.innerText as string);

it('shows who added the person to a project they did not create', async () => {
  const owner = await createProjectFixture(h, 'Shared by Ada');
  const mine = await s.signUp('Mine');
  const me = await h.deps.knex('users').where({ email: mine.email }).first('id');
  await h.deps.knex('users').where({ id: me.id }).update({ email_verified: true });
  expect((await h.http.post(`/projects/${owner.projectId}/members`).set('Cookie', owner.cookie).send({ email: mine.email })).status).toBe(201);

  // Their own project: nobody added them.
  await page.goto(`${s.api.url}/app/p/${mine.projectId}`, { waitUntil: 'load' });
  await s.waitForText('Setup checklist');
  expect(await shownText()).not.toMatch(/Added by/i);

  // The project list names who added them, under the shared project's name only.
  await page.click('input[aria-label="Project"]');
  const option = await page.waitForFunction(
    () => [...(globalThis as any).document.querySelectorAll('[role="option"]')].find((x: any) => x.textContent.includes('Shared by Ada'))?.textContent ?? null,
    { timeout: 45_000 },
  );
  expect(await option.jsonValue()).toBe(`Shared by AdaAdded by ${owner.email}`);
  const mineOption = await page.evaluate(
    () => [...(globalThis as any).document.querySelectorAll('[role="option"]')].find((x: any) => x.textContent.startsWith('Mine'))?.textContent,
  );
  expect(mineOption).toBe('Mine');

  // The shared project's home says it too.
  await page.goto(`${s.api.url}/app/p/${owner.projectId}`, { waitUntil: 'load' });
  await s.waitForText('Setup checklist');
  await s.waitForText(`Added by ${owner.email}`);
  expect(s.problems).toEqual([]);
});
