import path from 'node:path';
import type { Page } from 'puppeteer-core';
import { bearer, Harness } from '../helpers/harness';
import { openDashboard, DashboardSession } from '../helpers/dashboardSession';
import { TEST_REGISTRY } from '../fixtures/steps/registry';
import { stampActivities } from '../fixtures/steps/stamp.activities';

/**
 * The other half of test/integration/stepPlugins.test.ts: the two step types that exist only in
 * test/fixtures/steps, injected into the app, are offered by the real dashboard's palette and
 * configured through the form it generates from their JSON Schemas, with no web code about them.
 * The weighted split's branches appear on its node as its config names them.
 */

let s: DashboardSession;
let h: Harness;
let page: Page;

beforeAll(async () => {
  s = await openDashboard({
    harness: {
      steps: { registry: TEST_REGISTRY, workflowsPath: path.join(__dirname, '..', 'fixtures', 'steps', 'workflows.ts'), activities: stampActivities([]) },
    },
  });
  ({ h, page } = s);
}, 300_000);
afterAll(async () => s?.close());

it('offers the injected types in the palette and saves valid configs through the generated form', async () => {
  const { projectId, secretKey } = await s.signUp('Plugins project');
  const created = await h.http.post('/workflows').set(bearer(secretKey)).send({ name: 'Plugged', eventName: 'plugged' });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  const stepsOf = async () =>
    (await h.http.get(`/workflows/${id}`).set(bearer(secretKey))).body.steps as { id: string; type: string; config: unknown; branches: string[] }[];

  await page.goto(`${s.api.url}/app/p/${projectId}/workflows/${id}`, { waitUntil: 'load' });
  await page.waitForSelector('::-p-aria([name="Workflow graph"][role="application"])');

  // WEIGHTED_SPLIT: an array of { name, weight } rows, two to start with (its minItems).
  await s.click('WEIGHTED_SPLIT');
  const row = (i: number) => `[data-config-path="branches.${i}"]`;
  await s.replace('Name', 'Gold', row(0));
  await s.replace('Weight', '3', row(0));
  await s.replace('Name', 'grey', row(1));
  await s.replace('Weight', '1', row(1));
  await s.replace('Step name', 'Split');
  await s.click('Save step');
  // The API's 422 lands on the input it names, in a person's sentence: names are lower case.
  await page.waitForFunction(
    (sel: string) => (globalThis as any).document.querySelector(sel)?.innerText.includes('is not in the right form'),
    { timeout: 45_000 },
    row(0),
  );
  await s.replace('Name', 'gold', row(0));
  await s.click('Add branch');
  await s.replace('Name', 'blue', row(2));
  await s.replace('Weight', '0', row(2));
  await s.click('Save step');
  await page.waitForSelector('::-p-aria([name="Split (WEIGHTED_SPLIT)"])');
  const split = (await stepsOf()).find((x) => x.type === 'WEIGHTED_SPLIT')!;
  expect(split.config).toEqual({
    branches: [
      { name: 'gold', weight: 3 },
      { name: 'grey', weight: 1 },
      { name: 'blue', weight: 0 },
    ],
  });
  // One handle per branch its config names, titled (a handle is a div: a name there is not allowed, axe aria-prohibited-attr).
  const handles = await page.$$eval(`.react-flow__node[data-id="${split.id}"] .react-flow__handle.source`, (els) => els.map((e) => e.getAttribute('title')));
  expect(handles).toEqual(['gold branch of Split', 'grey branch of Split', 'blue branch of Split']);

  // STAMP declares its words: the palette shows its title and description under its category.
  await s.waitForText('Puts a label on the contact, for tests.');
  expect(await page.$eval('[role="group"][aria-label="Data"]', (el) => el.textContent)).toContain('Stamp contact');
  // A plugin's picker (from its `references`) and its own title.
  await s.click('Stamp contact');
  await s.inputId('Template id');
  await s.replace('Label', 'vip');
  await s.click('Save step');
  await page.waitForSelector('::-p-aria([name="Stamp contact (Stamp contact)"])');
  const stamped = (await stepsOf()).find((x) => x.type === 'STAMP')!;
  expect(stamped.config).toEqual({ label: 'vip' });
  // Its node shows its title and the summary the server computed from its `summary`.
  expect(await page.$eval(`.react-flow__node[data-id="${stamped.id}"]`, (el) => el.textContent)).toContain('Stamp “vip”');

  // Picked in the palette while the split was selected, the step went in after it, on its first branch (gold).
  const transitions = async () => (await h.http.get(`/workflows/${id}`).set(bearer(secretKey))).body.transitions as { fromStepId: string; branch: string }[];
  await page.waitForSelector('::-p-aria([name="gold: Split to Stamp contact"])');
  expect((await transitions()).filter((t) => t.fromStepId === split.id).map((t) => t.branch)).toEqual(['gold']);

  // Delete splices: Split -gold-> Stamp -next-> Exit becomes Split -gold-> Exit.
  await s.click('Exit');
  await s.waitForText('New step: Exit');
  await s.click('Save step');
  await page.waitForSelector('::-p-aria([name="Exit (Exit)"])');
  const stamp = (await stepsOf()).find((x) => x.type === 'STAMP')!;
  const exit = (await stepsOf()).find((x) => x.type === 'EXIT')!;
  // Picked while the new Stamp step was selected: it went in after it.
  await page.waitForSelector('::-p-aria([name="next: Stamp contact to Exit"])');
  await page.click(`.react-flow__node[data-id="${stamp.id}"]`);
  await s.click('Delete step');
  await page.waitForSelector('::-p-aria([name="gold: Split to Exit"])');
  expect(await page.$(`.react-flow__node[data-id="${stamp.id}"]`)).toBeNull();
  expect((await transitions()).map((t) => [t.fromStepId, t.branch])).toEqual([[split.id, 'gold']]);
  expect((await h.http.get(`/workflows/${id}`).set(bearer(secretKey))).body.transitions[0].toStepId).toBe(exit.id);
  expect(s.problems).toEqual([]);
}, 180_000);
