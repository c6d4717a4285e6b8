import type { Page } from 'puppeteer-core';
import { bearer, eventually, Harness } from '../helpers/harness';
import { openDashboard, DashboardSession, testEmail } from '../helpers/dashboardSession';
import { verifiedDomain } from '../helpers/fixtures';

/**
 * The workflow editor and executions (web/src/pages/Workflow*.tsx) in a real Chromium against the
 * real app and worker: a workflow built on the canvas (a step from the palette configured through
 * its generated form, the trigger's branch connected by dragging, another by its branch input),
 * refused while incomplete with the message on the node concerned, enabled, triggered by
 * POST /v1/track, and its execution followed in the table and its timeline; then executions held by
 * a DELAY are cancelled one, then all.
 */

let s: DashboardSession;
let h: Harness;
let page: Page;
let projectId: string;
let secretKey: string;
let publicKey: string;

beforeAll(async () => {
  s = await openDashboard({ harness: { worker: true } });
  ({ h, page } = s);
}, 300_000);
afterAll(async () => s?.close());

/** `WORKFLOW_SCREENSHOTS=1` also photographs the screens into docs/img. */
async function photograph(name: string) {
  if (process.env.WORKFLOW_SCREENSHOTS) await page.screenshot({ path: `docs/img/dashboard-${name}.png`, fullPage: true });
}

const node = (stepId: string) => `.react-flow__node[data-id="${stepId}"]`;

async function workflowOf(id: string) {
  const res = await h.http.get(`/workflows/${id}`).set(bearer(secretKey));
  expect(res.status).toBe(200);
  return res.body as {
    id: string;
    enabled: boolean;
    steps: { id: string; name: string; type: string; config: Record<string, unknown>; position: { x: number; y: number } | null }[];
    transitions: { fromStepId: string; toStepId: string; branch: string }[];
  };
}

/** Drags with the mouse from one element's centre to another's, in small moves as a hand does. */
async function drag(from: string, to: string) {
  const a = (await (await page.waitForSelector(from))!.boundingBox())!;
  const b = (await (await page.waitForSelector(to))!.boundingBox())!;
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  for (let i = 1; i <= 12; i++)
    await page.mouse.move(
      a.x + a.width / 2 + ((b.x - a.x + (b.width - a.width) / 2) * i) / 12,
      a.y + a.height / 2 + ((b.y - a.y + (b.height - a.height) / 2) * i) / 12,
    );
  await page.mouse.up();
}

it('builds a workflow on the canvas, enables it, and shows the execution /v1/track starts', async () => {
  ({ projectId, secretKey } = await s.signUp('Workflows project'));
  publicKey = await page.$eval('[data-testid="full-public-key"]', (el) => el.textContent!);
  await verifiedDomain(h, projectId, 'wf.example.com');
  const template = await h.http
    .post('/templates')
    .set(bearer(secretKey))
    .send({ name: 'Welcome mail', subject: 'Welcome', body: '<p>Hi</p>', from: 'team@wf.example.com' });
  expect(template.status).toBe(201);

  await s.click('Workflows', 'link');
  await s.waitForText('No workflows yet');
  await s.click('New workflow');
  await s.replace('Name', 'Welcome series');
  await s.replace('Trigger event', 'signed_up');
  await s.click('Create workflow');
  await page.waitForSelector('::-p-aria([name="Workflow graph"][role="application"])');
  const id = /\/workflows\/([0-9a-f-]{36})/.exec(page.url())![1];
  const trigger = (await workflowOf(id)).steps[0];
  await page.waitForSelector(`::-p-aria([name="Trigger (Trigger)"])`);

  // A SEND_EMAIL from the palette, its template picked in the form generated from its JSON Schema.
  await s.click('Send email');
  await s.choose('Template id', 'Welcome mail');
  await s.replace('Step name', 'Send welcome');
  await s.click('Save step');
  await page.waitForSelector('::-p-aria([name="Send welcome (Send email)"])');
  await s.click('Exit');
  await s.click('Save step');
  await page.waitForSelector('::-p-aria([name="Exit (Exit)"])');
  let wf = await workflowOf(id);
  const send = wf.steps.find((x) => x.type === 'SEND_EMAIL')!;
  const exit = wf.steps.find((x) => x.type === 'EXIT')!;
  expect(send).toMatchObject({ name: 'Send welcome', config: { templateId: template.body.id } });
  // Laid out by elk: no stored position until a hand moves it.
  expect(send.position).toBeNull();

  // Enabling now is refused: the message shows on the trigger's node, which is marked.
  await s.click('Enable');
  await s.waitForText('Not enabled');
  await page.waitForSelector(`${node(trigger.id)} [data-invalid="yes"]`);
  expect(await page.$eval(node(trigger.id), (el) => el.textContent)).toContain('Trigger: connect a first step');
  await photograph('workflow-enable-refused');

  // The trigger's next branch connected by dragging its handle onto the step; the step's own by its input.
  await drag(`${node(trigger.id)} .react-flow__handle.source[data-handleid="next"]`, `${node(send.id)} .react-flow__handle.target`);
  await eventually(async () => (await workflowOf(id)).transitions.some((t) => t.fromStepId === trigger.id && t.toStepId === send.id && t.branch === 'next'));
  await page.waitForSelector(`::-p-aria([name="next: Trigger to Send welcome"])`);
  // The Exit was picked in the palette while "Send welcome" was selected: it went in after it.
  await eventually(async () => (await workflowOf(id)).transitions.some((t) => t.fromStepId === send.id && t.toStepId === exit.id));

  // Laid out by elk: no stored position (a hand-placed one is stored by onNodeDragStop; not driven here).
  expect((await workflowOf(id)).steps.find((x) => x.id === exit.id)!.position).toBeNull();

  // "Add step" on the arrow from Send welcome to Exit: an Update contact goes in between, connected on both sides.
  const edge = (await workflowOf(id)).transitions.find((t) => t.fromStepId === send.id && t.toStepId === exit.id) as { id?: string } | undefined;
  expect(edge?.id).toBeDefined();
  // The canvas re-rendering under the open menu (the last save's answer landing) can close it: open it again then.
  for (let attempt = 1; ; attempt++) {
    await s.clickOn(`[data-edge-id="${edge!.id}"] ::-p-aria([name="Add step"])`);
    const picked = await s
      .clickOn('::-p-aria([name="Update contact"][role="menuitem"])', 10_000)
      .then(() => true)
      .catch((err) => (attempt === 3 ? Promise.reject(err) : false));
    if (picked) break;
  }
  await s.choose('Subscribed', 'Yes');
  await s.click('Save step');
  await page.waitForSelector('::-p-aria([name="Update contact (Update contact)"])');
  const inserted = await eventually(async () => {
    const g = await workflowOf(id);
    const upd = g.steps.find((x) => x.type === 'UPDATE_CONTACT');
    if (!upd) return null;
    const into = g.transitions.some((t) => t.fromStepId === send.id && t.toStepId === upd.id && t.branch === 'next');
    const out = g.transitions.some((t) => t.fromStepId === upd.id && t.toStepId === exit.id && t.branch === 'next');
    return into && out && !g.transitions.some((t) => t.fromStepId === send.id && t.toStepId === exit.id) ? upd : null;
  });
  expect(inserted.config).toEqual({ subscribed: true });

  await s.click('Enable');
  await page.waitForSelector('::-p-aria([name="Disable"][role="button"])');
  await page.waitForFunction(() => !(globalThis as any).document.querySelector('[data-invalid="yes"]'));
  wf = await workflowOf(id);
  expect(wf.enabled).toBe(true);
  await photograph('workflow-editor');

  // Triggered through the public API, as an app does.
  const email = testEmail('wf');
  expect((await h.http.post('/v1/track').set(bearer(publicKey)).send({ email, event: 'signed_up' })).status).toBe(200);

  // The canvas counts the run on its nodes (refreshing while open): one entered each step, one email sent.
  await page.waitForFunction(
    (sendId: string) => {
      const n = (globalThis as any).document.querySelector(`.react-flow__node[data-id="${sendId}"]`);
      return n && /1 entered · 0 waiting now/.test(n.innerText) && /1 sent · 0 opened · 0 clicked/.test(n.innerText) && /next · 1/.test(n.innerText);
    },
    { timeout: 60_000 },
    send.id,
  );
  // The send step's figures can land in a refresh taken before the run reached Exit: the next one shows it.
  await page.waitForFunction(
    (exitId: string) =>
      /1 entered · 0 waiting now · 1 ended/.test((globalThis as any).document.querySelector(`.react-flow__node[data-id="${exitId}"]`)?.innerText ?? ''),
    { timeout: 60_000 },
    exit.id,
  );

  await s.click('Executions', 'link');
  await page.waitForFunction(() => [...(globalThis as any).document.querySelectorAll('[data-execution-id]')].some((r: any) => r.innerText.includes('EXITED')), {
    timeout: 60_000,
  });
  await s.waitForText('exited (1)');
  // The row names the contact by email, and the search finds it by part of it.
  expect(await page.$eval('[data-execution-id]', (el) => (el as any).innerText as string)).toContain(email);
  await s.replace('Search', email.slice(0, 8).toUpperCase());
  await s.waitForText(email);
  await s.replace('Search', 'nobody-like-this');
  await s.waitForText('No executions of a contact matching');
  await s.replace('Search', '');
  await s.clickOn('[data-execution-id] button');
  // The timeline says what each step did in words; the raw output is one click away.
  await s.waitForText('Sent the email');
  let timeline = await page.$eval('[aria-label="Execution timeline"]', (el) => (el as any).innerText as string);
  expect(timeline).toMatch(
    /Trigger[\s\S]*Started by the trigger event and took ‘next’[\s\S]*Send welcome[\s\S]*Sent the email[\s\S]*Update contact[\s\S]*Updated the contact[\s\S]*Exit[\s\S]*Ended the execution/,
  );
  expect(timeline).not.toContain('emailId');
  await page.waitForSelector('[aria-label="Execution timeline"] ::-p-text(Raw output)');
  const raws = await page.$$('[aria-label="Execution timeline"] ::-p-text(Raw output)');
  for (const r of raws) await r.click();
  await page.waitForSelector('::-p-aria([name="Output of Send welcome"])');
  timeline = await page.$eval('[aria-label="Execution timeline"]', (el) => (el as any).innerText as string);
  expect(timeline).toMatch(/Send welcome[\s\S]*emailId/);
  const executionId = await page.$eval('[data-execution-id]', (el) => el.getAttribute('data-execution-id')!);
  const href = await page.$eval('::-p-aria([name="Open in Temporal"])', (el) => el.getAttribute('href'));
  expect(href).toBe(`${h.deps.config.temporal.uiUrl}/namespaces/${h.deps.config.temporal.namespace}/workflows/exec-${executionId}`);
  await photograph('workflow-executions');
  expect(s.problems).toEqual([]);
}, 240_000);

it('filters executions by status and cancels one, then all', async () => {
  // Built through the API: a DELAY holds each execution WAITING.
  const created = await h.http.post('/workflows').set(bearer(secretKey)).send({ name: 'Slow drip', eventName: 'drip' });
  const wfId = created.body.id as string;
  const delay = await h.http
    .post(`/workflows/${wfId}/steps`)
    .set(bearer(secretKey))
    .send({ type: 'DELAY', config: { amount: 7, unit: 'days' } });
  expect(
    (await h.http.post(`/workflows/${wfId}/transitions`).set(bearer(secretKey)).send({ fromStepId: created.body.steps[0].id, toStepId: delay.body.id })).status,
  ).toBe(201);
  expect((await h.http.patch(`/workflows/${wfId}`).set(bearer(secretKey)).send({ enabled: true })).status).toBe(200);
  for (const tag of ['a', 'b', 'c'])
    expect(
      (
        await h.http
          .post('/v1/track')
          .set(bearer(publicKey))
          .send({ email: testEmail(tag), event: 'drip' })
      ).status,
    ).toBe(200);

  await page.goto(`${s.api.url}/app/p/${projectId}/workflows/${wfId}/executions`, { waitUntil: 'load' });
  await s.waitForText('waiting (3)', 60_000);
  // Each waiting row says when it resumes, in the reader's time zone, under the current step's title.
  await page.waitForFunction(() => [...(globalThis as any).document.querySelectorAll('[data-execution-id]')].length === 3);
  // Under load a row may still be at its trigger for a moment: wait until the first one waits.
  await page.waitForFunction(
    () => /^Wait/.test(((globalThis as any).document.querySelector('[data-execution-id] [data-current-step]')?.innerText as string | undefined) ?? ''),
    { timeout: 30_000 },
  );
  const row = await page.$eval('[data-execution-id] [data-current-step]', (el) => (el as any).innerText as string);
  expect(row).toMatch(/^Wait( · [^\n]+)?\s+resumes \d{1,2} \w+, \d{2}:\d{2} [\w/+-]+$/);
  // The counts can arrive before the list's rows: wait for a row's menu, then open it.
  await s.clickOn('[data-execution-id] button');
  await s.click('Cancel execution');
  await s.waitForText('cancelled (1)');
  await s.click('Cancel all');
  await s.click('Cancel 2 executions');
  await s.waitForText('Cancelled 2 executions');
  await s.waitForText('cancelled (3)');
  await s.waitForText('waiting (0)');

  // The filter shows one status only.
  const option = await page.waitForSelector('::-p-text(Cancelled (3))');
  await option!.click();
  await page.waitForFunction(() => {
    const rows = [...(globalThis as any).document.querySelectorAll('[data-execution-id]')] as any[];
    return rows.length === 3 && rows.every((r) => r.innerText.includes('CANCELLED'));
  });
  expect(s.problems).toEqual([]);
}, 180_000);
