import type { Page } from 'puppeteer-core';
import { bearer, eventually, Harness } from '../helpers/harness';
import { openDashboard, DashboardSession, testEmail } from '../helpers/dashboardSession';
import { verifiedDomain } from '../helpers/fixtures';

/**
 * "Start from a flow" and "Test with a contact" (web/src/components/workflow/StartFromFlow.tsx,
 * TestRun.tsx) in a real Chromium against the real app and worker: the abandoned-cart starter is
 * created from the gallery, refused by Enable until its email has a template, then tested with a
 * contact: the path taken is listed step by step, and the email went to the signed-in person only.
 */

let s: DashboardSession;
let h: Harness;
let page: Page;

beforeAll(async () => {
  s = await openDashboard({ harness: { worker: true } });
  ({ h, page } = s);
}, 300_000);
afterAll(async () => s?.close());

/** `WORKFLOW_SCREENSHOTS=1` also photographs the screens into docs/img. */
async function photograph(name: string) {
  if (process.env.WORKFLOW_SCREENSHOTS) await page.screenshot({ path: `docs/img/dashboard-${name}.png`, fullPage: true });
}

it('creates the abandoned cart from "Start from a flow", picks its template, and tests it with a contact', async () => {
  const { projectId, secretKey, email: me } = await s.signUp('Flows project');
  await verifiedDomain(h, projectId, 'flows.example.com');
  const template = await h.http
    .post('/templates')
    .set(bearer(secretKey))
    .send({ name: 'Cart reminder', subject: 'You left something', body: '<p>Come back</p>', from: 'shop@flows.example.com' });
  expect(template.status).toBe(201);
  const contact = testEmail('shopper');
  expect((await h.http.post('/contacts').set(bearer(secretKey)).send({ email: contact })).status).toBe(201);

  await s.click('Workflows', 'link');
  await s.click('Start from a flow');
  await s.waitForText('Welcome series');
  await s.waitForText('Post-purchase follow-up');
  await photograph('workflow-starters');
  await s.click('Use this flow: Abandoned cart');
  await page.waitForSelector('::-p-aria([name="Workflow graph"][role="application"])');
  const id = /\/workflows\/([0-9a-f-]{36})/.exec(page.url())![1];
  await s.waitForText('Disabled');

  // Enable names the email that still needs its template.
  await s.click('Enable');
  await s.waitForText('Send email: pick a template');
  await s.clickOn('::-p-aria([name="Reminder (Send email)"])');
  await s.choose('Template id', 'Cart reminder');
  await s.click('Save step');
  await eventually(async () => {
    const wf = await h.http.get(`/workflows/${id}`).set(bearer(secretKey));
    return wf.body.steps.some((x: any) => x.type === 'SEND_EMAIL' && x.config.templateId === template.body.id);
  });

  await s.click('Test with a contact');
  await s.choose('Contact', contact);
  await s.click('Start test run');
  await s.waitForText(`Emails of this run go to ${me}`);
  await page.waitForFunction(() => (globalThis as any).document.querySelector('[data-testid="test-run-status"]')?.textContent === 'Completed', {
    timeout: 60_000,
  });
  const path = await page.$eval('[aria-label="Path taken"]', (el) => (el as any).innerText as string);
  await photograph('workflow-test-run');
  // The path reads in words; the raw output stays one click away.
  expect(path).toMatch(/Trigger[\s\S]*Wait for event: Wait for purchase[\s\S]*No event came in time[\s\S]*Send email: Reminder[\s\S]*Sent the email/);
  expect(path).not.toMatch(/timedOut|emailId/);

  const email = await eventually(async () => h.deps.knex('emails').where({ project_id: projectId, template_id: template.body.id }).first());
  expect(email).toMatchObject({ to_email: me, contact_id: null, subject: '[Test] You left something' });
  expect(await h.deps.knex('emails').where({ project_id: projectId, to_email: contact })).toHaveLength(0);
  // The executions list does not show the test run.
  const list = await h.http.get(`/workflows/${id}/executions`).set(bearer(secretKey));
  expect(list.body.total).toBe(0);

  // Enabled (here by the dashboard's own session, as its Enable button would), it runs version 1;
  // "Versions" lists it with who made it.
  const enabled = await page.evaluate(async (path: string) => {
    const doc = (globalThis as any).document;
    const res = await (globalThis as any).fetch(path, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json', 'X-Project-Id': doc.location.pathname.split('/')[3] },
      body: JSON.stringify({ enabled: true }),
    });
    return res.status;
  }, `/workflows/${id}`);
  expect(enabled).toBe(200);
  await page.reload();
  await s.waitForText('Version 1');
  await s.click('Versions');
  await s.waitForText('First version');
  const versions = await page.$eval('[aria-label="Versions"]', (el) => (el as any).innerText as string);
  expect(versions).toContain(me);
  expect(s.problems).toEqual([]);
}, 240_000);
