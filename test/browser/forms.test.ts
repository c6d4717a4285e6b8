import type { Page } from 'puppeteer-core';
import { bearer, Harness } from '../helpers/harness';
import { openDashboard, DashboardSession, testEmail } from '../helpers/dashboardSession';
import { MIN_FILL_MS } from '../../lib/formStamp';

/**
 * Signup forms in a real headless Chromium against the real app: a form made on the dashboard's
 * "New form" screen, its "Copy embed code", then its hosted page used with JavaScript off (a plain
 * HTML form) by a visitor, whose contact appears.
 */

let s: DashboardSession;
let h: Harness;
let page: Page;

beforeAll(async () => {
  s = await openDashboard();
  ({ h, page } = s);
}, 300_000);
afterAll(async () => s?.close());

/** `FORMS_SCREENSHOTS=1` photographs the screens into docs/img (docs/forms.md shows them). */
async function photograph(name: string) {
  if (process.env.FORMS_SCREENSHOTS) await page.screenshot({ path: `docs/img/${name}.png`, fullPage: true });
}

it('creates a form on the dashboard and takes a signup on its hosted page without JavaScript', async () => {
  const project = await s.signUp('Forms project');
  await s.click('Forms', 'link');
  await s.waitForText('No forms yet');
  await s.click('New form', 'link');
  await s.replace('Name', 'Product newsletter');
  await s.click('Add field');
  await s.replace('Label', 'Company');
  await s.replace('Contact field', 'company');
  // The preview renders the same markup as the hosted page.
  await page.waitForFunction(() => (globalThis as any).document.querySelector('iframe[title="Form preview"]')?.srcdoc.includes('name="company"'), {
    timeout: 45_000,
  });
  await s.click('Create form');
  await page.waitForSelector('::-p-aria([name="Copy embed code"][role="button"])', { timeout: 45_000 });
  await photograph('forms-editor');
  // The list: the form with its fields, its hosted page and "Copy embed code".
  await s.click('Forms', 'link');
  await s.waitForText('email, company');
  await photograph('forms-list');

  const forms = (await h.http.get('/forms').set(bearer(project.secretKey))).body.data;
  expect(forms).toHaveLength(1);
  expect(forms[0]).toMatchObject({ name: 'Product newsletter', fields: [{ key: 'company', label: 'Company', type: 'text', required: false }] });
  expect(s.problems).toEqual([]);

  // The visitor's browser runs no script: the page is a plain form.
  await page.setJavaScriptEnabled(false);
  await page.goto(forms[0].publicUrl);
  const email = testEmail('signup');
  await page.type('#f-email', email);
  await page.type('#f-company', 'Acme');
  await photograph('forms-hosted-page');
  // A person takes longer than the page's minimum fill time (lib/formStamp.ts); so does this one.
  await new Promise((resolve) => setTimeout(resolve, MIN_FILL_MS + 200));
  await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
  expect(await page.content()).toContain('Thank you for signing up.');

  const contacts = (await h.http.get('/contacts').set(bearer(project.secretKey))).body.data;
  expect(contacts).toEqual([expect.objectContaining({ email, subscribed: true, data: { company: 'Acme' } })]);
});
