import crypto from 'node:crypto';
import type { Page } from 'puppeteer-core';
import { bearer, Harness } from '../helpers/harness';
import { openDashboard, DashboardSession, testEmail } from '../helpers/dashboardSession';

/**
 * Screens for what the API already did without one, in one headless Chromium session as the project's
 * creator (an OWNER: writes on suppressions and domains may be kept to owners and admins):
 * "Add contact" from the setup checklist's link (a bad address answered with the API's sentence on
 * its field, an address already listed sent to its page rather than overwritten), a field and the subscribed switch on the contact's page, "Suppressions" (add, confirm
 * and remove, the empty state), and "Delete domain".
 */

let s: DashboardSession;
let h: Harness;
let page: Page;
const DIALOG = '[role="dialog"]';
const PROJECT = 'Screens project';
const DOMAIN = 'screens-ui.example.com';

beforeAll(async () => {
  s = await openDashboard();
  ({ h, page } = s);
}, 300_000);
afterAll(async () => s?.close());

const rowsOf = (table: string) =>
  page.$$eval(`table[aria-label="${table}"] tbody tr`, (rows) =>
    rows.map((r) => (r as unknown as { innerText: string }).innerText.replace(/\s+/g, ' ').trim()),
  );
/** The table's rows once one of them shows `text`: a status line can come before the list's refetch. */
const rowsShowing = async (table: string, text: string) => {
  await page.waitForFunction(
    (sel: string, t: string) => [...(globalThis as any).document.querySelectorAll(sel)].some((r: any) => r.innerText.includes(t)),
    { timeout: 45_000 },
    `table[aria-label="${table}"] tbody tr`,
    text,
  );
  return rowsOf(table);
};
const inDialog = async (name: string) => s.clickOn(`${DIALOG} ::-p-aria([name="${name}"][role="button"])`);
const dialogClosed = () => page.waitForFunction(() => !(globalThis as any).document.querySelector('[role="dialog"]'), { timeout: 45_000 });

it('adds a contact, edits it, suppresses and lifts an address, deletes a domain', async () => {
  const { projectId, secretKey } = await s.signUp(PROJECT);
  const key = bearer(secretKey);

  // "Add contact" from the setup checklist: a bad address is refused with the API's sentence on the field.
  await s.click('Add a contact', 'link');
  await s.waitForText('No contacts yet');
  expect(await page.title()).toBe(`Contacts · ${PROJECT}`);
  await s.click('Add contact');
  // The dialog opens with a transition: wait for its named close button rather than look once.
  expect(await page.waitForSelector(`${DIALOG} ::-p-aria([name="Close"][role="button"])`, { timeout: 45_000 })).not.toBeNull();
  await s.replace('Email', 'not-an-address', DIALOG);
  await s.click('Create contact');
  await s.waitForText('Enter a valid email address');
  expect(await page.$eval(DIALOG, (d) => (d as any).innerText)).not.toContain('Request validation failed');
  const address = testEmail('added');
  await s.replace('Email', address, DIALOG);
  await s.click('Add a field');
  await s.replace('Field 1 name', 'plan', DIALOG);
  await s.replace('Field 1 value', 'pro', DIALOG);
  await s.click('Create contact');
  await dialogClosed();
  await s.waitForText(address);
  expect(await rowsShowing('Contacts', address)).toEqual([expect.stringContaining(address)]);
  const listed = (await h.http.get('/contacts').query({ search: address }).set(key)).body.data;
  expect(listed).toEqual([expect.objectContaining({ email: address, subscribed: true, data: { plan: 'pro' } })]);

  // The address again (POST /contacts would overwrite it): the dialog says so and links to its page.
  await s.click('Add contact');
  await s.replace('Email', address.toUpperCase(), DIALOG);
  await s.click('Create contact');
  await s.waitForText('is already a contact');
  await s.click('open its page', 'link');
  await dialogClosed();

  // Its page: a field value edited, then the subscribed switch turned off.
  await s.click('Edit plan');
  await s.replace('Value', 'team', DIALOG);
  await s.click('Save field');
  // The fields table reads the string as it is, not as JSON.
  await page.waitForFunction(() => (globalThis as any).document.querySelector('[data-field-value="plan"]')?.textContent === 'team', { timeout: 45_000 });
  await page.evaluate(() => {
    const inputs = [...(globalThis as any).document.querySelectorAll('input[role="switch"]')] as any[];
    inputs.find((i) => i.closest('.mantine-Switch-root')?.textContent.includes('Subscribed')).click();
  });
  await s.waitForText('Unsubscribed');
  const contact = (await h.http.get(`/contacts/${listed[0].id}`).set(key)).body;
  expect(contact).toMatchObject({ subscribed: false, data: { plan: 'team' } });

  // Suppressions: the empty state says what to do; an address added, then removed after a confirmation.
  await s.click('Suppressions', 'link');
  await s.waitForText('No suppressed addresses');
  expect(await page.title()).toBe(`Suppressions · ${PROJECT}`);
  // A bad address: the 422's field message on the input, not the envelope's "Request validation failed".
  await s.replace('Email address', 'nope');
  await s.click('Suppress address');
  await s.waitForText('Enter a valid email address');
  expect(await page.$eval('body', (b) => (b as any).innerText)).not.toContain('Request validation failed');
  const blocked = testEmail('blocked');
  await s.replace('Email address', blocked);
  await s.click('Suppress address');
  await s.waitForText(`${blocked} is suppressed`);
  expect(await rowsShowing('Suppressions', blocked)).toEqual([
    expect.stringMatching(new RegExp(`^${blocked.replace(/[.]/g, '\\.')} Added by hand This dashboard or the API .* Never`, 'i')),
  ]);
  expect((await h.http.get('/suppressions').set(key)).body.data).toEqual([expect.objectContaining({ email: blocked, reason: 'MANUAL' })]);
  await s.click(`Remove ${blocked}`);
  await inDialog('Remove from suppressions');
  await s.waitForText('No suppressed addresses');
  expect((await h.http.get('/suppressions').set(key)).body.data).toEqual([]);
  // A bounce's entry names the email it came from in words, and one click shows that email as sent (not its id).
  const bouncedEmailId = crypto.randomUUID();
  const bounced = testEmail('bounced');
  await h.deps.knex('emails').insert({
    id: bouncedEmailId,
    project_id: projectId,
    to_email: bounced,
    from_email: 'news@example.com',
    subject: 'Spring news',
    body: '<p>Spring news</p>',
    rendered_subject: 'Spring news',
    rendered_body: '<p>Hello from spring</p>',
    status: 'BOUNCED',
  });
  await h.deps.knex('suppressions').insert({ project_id: projectId, email: bounced, reason: 'HARD_BOUNCE', email_id: bouncedEmailId });
  await page.reload();
  await s.waitForText('Reported for an email');
  expect(await page.$eval('body', (b) => (b as any).innerText)).not.toContain(bouncedEmailId);
  await s.click('an email');
  await page.waitForSelector('[role="dialog"] iframe', { timeout: 45_000 });
  await page.keyboard.press('Escape');

  // Domains: "Delete domain" asks first, then the domain is gone.
  expect((await h.http.post('/domains').set(key).send({ domain: DOMAIN })).status).toBe(201);
  await s.click('Domains', 'link');
  await s.waitForText(DOMAIN);
  await s.click('Delete domain');
  await s.waitForText(`Delete ${DOMAIN}?`);
  await inDialog('Delete domain');
  await s.waitForText('No domains yet');
  expect((await h.http.get(`/domains/project/${projectId}`).set(key)).body).toEqual([]);
  expect(s.problems).toEqual([]);
}, 240_000);
