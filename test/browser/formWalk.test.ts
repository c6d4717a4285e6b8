import type { Page } from 'puppeteer-core';
import { bearer, Harness } from '../helpers/harness';
import { openDashboard, DashboardSession, testEmail } from '../helpers/dashboardSession';

/**
 * People's language on every form: each form gets a bad value the browser itself lets through, is submitted,
 * and the API's refusal must read as a sentence for people on the field it is about (and in the toast),
 * never as zod's developer English or the envelope's "Request validation failed". Then the two Undos:
 * a contact deleted from the list comes back with its fields, a removed suppression is suppressed again.
 */

let s: DashboardSession;
let h: Harness;
let page: Page;
const DIALOG = '[role="dialog"]';

/** zod's and the envelope's developer text (issue 42): none of it may be shown to a person. */
const DEVELOPER_TEXT = ['Request validation failed', 'Too small', 'Too big', 'expected', 'Invalid input', 'invalid_type', '>=', 'must match pattern'];

beforeAll(async () => {
  // The bulk delete is a job the worker runs.
  s = await openDashboard({ harness: { worker: true } });
  ({ h, page } = s);
}, 300_000);
afterAll(async () => s?.close());

const sentenceOn = (label: string, scope?: string) => s.sentenceOn(label, scope);
const failureTexts = () => s.failureTexts();

async function noDeveloperText(form: string) {
  const shown = (await failureTexts()).join('\n');
  for (const bad of DEVELOPER_TEXT) expect([form, shown.includes(bad) ? bad : null]).toEqual([form, null]);
}

/**
 * Types a bad value into each labelled input, submits with `button` (its accessible name, or a
 * selector after `css:` where the name is not unique), and expects each field's sentence.
 */
async function walk(form: string, values: Record<string, string>, button: string, expected: Record<string, string | RegExp>, scope = 'body') {
  for (const [label, value] of Object.entries(values)) await s.replace(label, value, scope);
  if (button.startsWith('css:')) await page.click(button.slice(4));
  else await s.click(button);
  for (const [label, sentence] of Object.entries(expected)) {
    const shown = await sentenceOn(label, scope);
    if (typeof sentence === 'string') expect([form, label, shown]).toEqual([form, label, sentence]);
    else expect([form, label, shown]).toEqual([form, label, expect.stringMatching(sentence)]);
  }
  await noDeveloperText(form);
}

/** The form's alert inside `scope`, once it reads `sentence` (forms that answer in one alert, not on a field). */
async function alertIn(form: string, scope: string, sentence: RegExp) {
  const shown = () => page.$$eval(`${scope} [role="alert"]`, (els) => els.map((e) => (e as unknown as { innerText: string }).innerText.trim()).join('\n'));
  await page
    .waitForFunction(
      (sel: string, source: string) =>
        new RegExp(source).test([...(globalThis as any).document.querySelectorAll(`${sel} [role="alert"]`)].map((e: any) => e.innerText.trim()).join('\n')),
      { timeout: 45_000 },
      scope,
      sentence.source,
    )
    .catch(() => undefined);
  expect([form, await shown()]).toEqual([form, expect.stringMatching(sentence)]);
  await noDeveloperText(form);
}

const go = async (projectId: string, path: string, text: string) => {
  await page.goto(`${s.api.url}/app/p/${projectId}/${path}`, { waitUntil: 'load' });
  await s.waitForText(text);
};

it('every form answers bad input with a sentence on its field', async () => {
  // Sign up: a malformed address (the browser's own check lets "ada@x" through) and a short password.
  await page.goto(`${s.api.url}/app/signup`, { waitUntil: 'load' });
  await walk('signup', { Email: 'ada@x', Password: 'short' }, 'Sign up', {
    Email: 'Enter a valid email address',
    Password: 'Password must be at least 8 characters',
  });
  // Log in with the same malformed address.
  await page.goto(`${s.api.url}/app/login`, { waitUntil: 'load' });
  await walk('login', { Email: 'ada@x', Password: 'whatever' }, 'Log in', { Email: 'Enter a valid email address' });

  const { projectId, secretKey } = await s.signUp('Form walk');
  const key = bearer(secretKey);

  // A new project named with spaces only.
  await page.goto(`${s.api.url}/app/new-project`, { waitUntil: 'load' });
  await walk('new project', { 'Project name': '   ' }, 'Create project', { 'Project name': 'Name is required' });

  // Add contact.
  await go(projectId, 'contacts', 'Contacts');
  await s.click('Add contact');
  await page.waitForSelector(DIALOG);
  await walk('add contact', { Email: 'not-an-address' }, 'Create contact', { Email: 'Enter a valid email address' }, DIALOG);
  await page.keyboard.press('Escape');

  // Suppress an address.
  await go(projectId, 'suppressions', 'Suppressions');
  await walk('suppression', { 'Email address': 'nope' }, 'Suppress address', { 'Email address': 'Enter a valid email address' });

  // Add a domain pasted with its scheme and path.
  await go(projectId, 'domains', 'Domains');
  await walk('domain', { Domain: 'https://example.com/mail' }, 'Add domain', { Domain: /^Enter a domain like example\.com — without https:\/\// });

  // A webhook endpoint that is no URL.
  await go(projectId, 'webhooks', 'Webhooks');
  await walk('webhook endpoint', { 'Endpoint URL': 'not a url' }, 'Add endpoint', { 'Endpoint URL': /^URL must be a full web address/ });

  // A topic with a slug in capitals.
  await go(projectId, 'topics', 'Topics');
  await walk('topic', { Name: 'News', Slug: 'Big News' }, 'Create topic', { Slug: /^Slug must be lowercase letters and digits/ });

  // Invite a teammate with a malformed address.
  await go(projectId, 'team', 'Team');
  await walk('invite', { Email: 'bob@x' }, 'Invite', { Email: 'Enter a valid email address' });

  // Rename the project to nothing (spaces).
  await go(projectId, 'settings', 'Settings');
  await walk('settings: project', { 'Project name': '   ' }, 'Rename', { 'Project name': 'Name is required' });

  // Whatever was refused, nothing was written.
  expect((await h.http.get('/contacts').set(key)).body.data).toEqual([]);
  expect(s.problems).toEqual([]);
}, 300_000);

it('every other form answers bad input with a sentence too: segment, template, campaign, signup form, workflow step, API key, contact field', async () => {
  const { projectId, secretKey } = await s.signUp('Form walk, part two');
  const key = bearer(secretKey);

  // A segment with no name (the segment routes answer a flat sentence, shown on the field it names).
  await go(projectId, 'segments/new', 'New segment');
  await walk('segment', { Name: '   ' }, 'Create segment', { Name: 'Name is required' });

  // A template with no name (the subject makes the draft worth saving).
  await go(projectId, 'templates/new', 'New template');
  await walk('template', { Name: '', Subject: 'Hello' }, 'Create template', { Name: 'Name is required' });

  // A campaign named with spaces only.
  await go(projectId, 'campaigns/new', 'New campaign');
  await walk('campaign', { Name: '   ' }, 'Save draft', { Name: 'Name is required' });

  // A signup form whose redirect is no web address.
  await go(projectId, 'forms/new', 'Redirect URL');
  const settings = '[aria-label="Form settings"]';
  await walk(
    'signup form',
    { Name: 'Newsletter', 'Redirect URL': 'not a url' },
    'Create form',
    { 'Redirect URL': /^Redirect URL must be a full web address/ },
    settings,
  );

  // A workflow step calling a webhook at no web address: the 422 lands on the step's generated input.
  const workflow = await h.http.post('/workflows').set(key).send({ name: 'Walked', eventName: 'walked' });
  expect(workflow.status).toBe(201);
  await page.goto(`${s.api.url}/app/p/${projectId}/workflows/${workflow.body.id}`, { waitUntil: 'load' });
  await page.waitForSelector('::-p-aria([name="Workflow graph"][role="application"])', { timeout: 45_000 });
  await s.click('Call webhook');
  await walk('workflow step', { 'Step name': 'Ping', URL: 'not a url' }, 'Save step', { URL: /^URL must be a full web address/ });

  // A scoped API key named with spaces only (the dialog's own button: the page has one of the same name).
  await go(projectId, 'keys', 'Scoped API keys');
  await s.click('Create API key');
  await page.waitForSelector(DIALOG);
  await walk('API key', { Name: '   ' }, `css:${DIALOG} button[type="submit"]`, { Name: 'Name is required' }, DIALOG);
  await page.keyboard.press('Escape');

  // A contact's field with no name, then with a dot in it: the field form answers in its alert.
  const contact = await h.http
    .post('/contacts')
    .set(key)
    .send({ email: testEmail('fields') });
  expect(contact.status).toBeLessThan(300);
  await go(projectId, `contacts/${contact.body.id}`, 'Add field');
  await s.click('Add field');
  await page.waitForSelector(DIALOG);
  await s.replace('Value', 'pro', DIALOG);
  await s.click('Save field');
  await alertIn('contact field: no name', DIALOG, /Names must be 1 to \d+ characters long/);
  await s.replace('Field name', 'plan.name', DIALOG);
  await s.click('Save field');
  await alertIn('contact field: a dot', DIALOG, /Names may not contain a dot: nest a group of fields instead/);
  expect((await h.http.get(`/contacts/${contact.body.id}`).set(key)).body.data).toEqual({});

  // Nothing refused was written.
  expect((await h.http.get('/segments').set(key)).body).toEqual([]);
  expect((await h.http.get('/templates').set(key)).body.data).toEqual([]);
  expect((await h.http.get('/forms').set(key)).body.data).toEqual([]);
  expect(s.problems).toEqual([]);
}, 300_000);

it('undoes deleting a contact from the list and removing a suppression', async () => {
  const { projectId, secretKey } = await s.signUp('Undo project');
  const key = bearer(secretKey);
  const email = testEmail('undo');
  const created = await h.http
    .post('/contacts')
    .set(key)
    .send({ email, subscribed: false, data: { plan: 'pro', seats: 3 } });
  expect(created.status).toBeLessThan(300);

  // Delete it from the list; the toast's Undo re-creates it with its subscription and fields.
  await go(projectId, 'contacts', email);
  await page.evaluate(() => {
    const boxes = [...(globalThis as any).document.querySelectorAll('table tbody input[type="checkbox"]')] as any[];
    boxes[0].click();
  });
  await s.click('Delete selected');
  await s.click('Delete contacts');
  await s.waitForText('1 contact deleted');
  expect((await h.http.get('/contacts').query({ search: email }).set(key)).body.data).toEqual([]);
  await clickUndo(page);
  await s.waitForText(`${email} restored with their fields and topics`);
  const back = (await h.http.get('/contacts').query({ search: email }).set(key)).body.data;
  expect(back).toEqual([expect.objectContaining({ email, subscribed: false, data: { plan: 'pro', seats: 3 } })]);

  // Remove a suppression; Undo puts it back on the list.
  const blocked = testEmail('blocked');
  expect(
    (
      await h.http
        .post('/suppressions')
        .set(key)
        .send({ emails: [blocked] })
    ).status,
  ).toBeLessThan(300);
  await go(projectId, 'suppressions', blocked);
  await s.click(`Remove ${blocked}`);
  await s.clickOn(`${DIALOG} ::-p-aria([name="Remove from suppressions"][role="button"])`);
  await s.waitForText(`${blocked} removed from suppressions`);
  expect((await h.http.get('/suppressions').set(key)).body.data).toEqual([]);
  // The toast with its Undo, once it has slid in, for docs/dashboard.md.
  await page.waitForFunction(() => {
    const toast = (globalThis as any).document.querySelector('.mantine-Notification-root');
    return toast && toast.getBoundingClientRect().right <= (globalThis as any).innerWidth - 8;
  });
  await page.screenshot({ path: 'docs/img/dashboard-undo-toast.png' });
  await clickUndo(page);
  await s.waitForText(`${blocked} is suppressed again`);
  expect((await h.http.get('/suppressions').set(key)).body.data).toEqual([expect.objectContaining({ email: blocked, reason: 'MANUAL' })]);
  expect(s.problems).toEqual([]);
}, 240_000);

/**
 * The toast slides in from the corner: until it is inside the window, its Undo has no point to click
 * (puppeteer's "not clickable"). Waits for the button to be fully on screen, then clicks it.
 */
async function clickUndo(page: Page) {
  await page.waitForFunction(
    () => {
      const doc = (globalThis as any).document;
      const button = [...doc.querySelectorAll('button')].find((b: any) => b.textContent.trim() === 'Undo') as any;
      if (!button) return false;
      const r = button.getBoundingClientRect();
      const w = (globalThis as any).window;
      return r.width > 0 && r.left >= 0 && r.top >= 0 && r.right <= w.innerWidth && r.bottom <= w.innerHeight;
    },
    { timeout: 45_000 },
  );
  await page.evaluate(() => {
    const doc = (globalThis as any).document;
    ([...doc.querySelectorAll('button')].find((b: any) => b.textContent.trim() === 'Undo') as any).click();
  });
}
