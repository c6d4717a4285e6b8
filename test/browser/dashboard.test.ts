import type { Page } from 'puppeteer-core';
import { bearer, Harness } from '../helpers/harness';
import { openDashboard, DashboardSession, testEmail as email } from '../helpers/dashboardSession';

/**
 * The dashboard (web/, served under /app/ by api/dashboard.ts) in a real headless Chromium against
 * the real app: a newcomer signs up, creates a project, sees the setup checklist, rotates the keys,
 * finds a contact added through the API, and adds a domain. One browser, one app server.
 */

let s: DashboardSession;
let h: Harness;
let page: Page;
/** The project the first test signs up into, and its current secret key; the screen tests after it use both. */
let projectId: string;
let secretKey: string;
/** A contact of that project with `data: { plan: 'pro' }`. */
let contact: string;

beforeAll(async () => {
  s = await openDashboard({ viewport: { width: 1280, height: 800 } });
  ({ h, page } = s);
}, 300_000);
afterAll(async () => s?.close());

const waitForText = (text: string, timeout?: number) => s.waitForText(text, timeout);
const fill = (label: string, value: string) => s.fill(label, value);
const replace = (label: string, value: string) => s.replace(label, value);
const replaceCode = (label: string, value: string) => s.replaceCode(label, value);
const click = (name: string, role?: string) => s.click(name, role);
/** A contact field's value as the fields table reads it (a string as it is, not as JSON). */
const fieldShows = (key: string, value: string) =>
  s.page.waitForFunction(
    (k: string, v: string) => (globalThis as any).document.querySelector(`[data-field-value="${k}"]`)?.textContent === v,
    { timeout: 45_000 },
    key,
    value,
  );

it('signs up, creates a project, rotates its keys, finds a contact, adds a domain and invites a member', async () => {
  h.config.email.localInbox = true;

  // A browser opening the server's root lands on the dashboard, served with a CSP and no inline script.
  const res = await page.goto(`${s.api.url}/`, { waitUntil: 'load' });
  expect(res!.url()).toBe(`${s.api.url}/app/`);
  // Signed out: the app sends the visitor on to the login form.
  await waitForText('Log in');
  expect(page.url()).toBe(`${s.api.url}/app/login`);
  expect(res!.headers()['content-security-policy']).toMatch(/script-src 'self'/);
  expect(await page.$$eval('script', (s) => s.filter((x) => !x.getAttribute('src')).length)).toBe(0);

  // Sign up → the first-project form.
  await click('Create an account', 'link');
  await waitForText('Create your account');
  const me = email('newcomer');
  await fill('Email', me);
  await fill('Password', 'correct horse battery');
  await click('Sign up');
  await waitForText('Project name');
  expect(page.url()).toBe(`${s.api.url}/app/new-project`);
  await fill('Project name', 'Browser project');
  await click('Create project');

  // The project: the development-inbox banner, the setup checklist, the new keys shown once.
  await waitForText('Setup checklist');
  await waitForText('Development inbox: mail does not leave this machine');
  projectId = /\/app\/p\/([0-9a-f-]{36})/.exec(page.url())![1];
  await waitForText('0 of 6 done');
  const firstKey = await page.$eval('[data-testid="full-secret-key"]', (el) => el.textContent!);
  expect(firstKey).toMatch(/^sk_/);
  for (const name of [
    'Contacts',
    'Templates',
    'Campaigns',
    'Analytics',
    'Segments',
    'Workflows',
    'Activity',
    'Domains',
    'API keys',
    'Team',
    'Settings',
    'Webhooks',
  ]) {
    expect(await page.$(`::-p-aria([name="${name}"][role="link"])`)).not.toBeNull();
  }

  // API keys: masked, rotation confirmed, the new pair shown once; the old key stops at once.
  await click('API keys', 'link');
  await waitForText('Rotate keys');
  expect(await page.$eval('[data-testid="masked-secret-key"]', (el) => el.textContent)).toBe(`sk_…${firstKey.slice(-4)}`);
  await click('Rotate keys');
  await waitForText('The old keys stop working at once');
  await click('Rotate now');
  await page.waitForFunction(
    (old: string) => {
      const el = (globalThis as any).document.querySelector('[data-testid="full-secret-key"]');
      return el && el.textContent !== old;
    },
    { timeout: 45_000 },
    firstKey,
  );
  secretKey = await page.$eval('[data-testid="full-secret-key"]', (el) => el.textContent!);
  expect((await h.http.get('/contacts').set(bearer(firstKey))).status).toBe(401);
  expect((await h.http.get('/contacts').set(bearer(secretKey))).status).toBe(200);

  // A contact added through the API, found with Search, opened.
  contact = email('found');
  expect(
    (
      await h.http
        .post('/contacts')
        .set(bearer(secretKey))
        .send({ email: contact, data: { plan: 'pro' } })
    ).status,
  ).toBe(201);
  expect(
    (
      await h.http
        .post('/contacts')
        .set(bearer(secretKey))
        .send({ email: email('other') })
    ).status,
  ).toBe(201);
  await click('Contacts', 'link');
  await waitForText('2 contacts');
  await fill('Search', contact.slice(0, 14));
  await waitForText('1 contact');
  expect(await page.$eval('table[aria-label="Contacts"]', (t) => (t as any).innerText)).toContain(contact);
  await click(contact, 'link');
  await waitForText('Fields');
  await fieldShows('plan', 'pro');
  expect(page.url()).toContain(`/app/p/${projectId}/contacts/cnt_`);

  // Domains: add one, its records as a table with copy buttons, pending until DNS says otherwise.
  await click('Domains', 'link');
  await waitForText('No domains yet');
  await fill('Domain', 'mail.browser.example.com');
  await click('Add domain');
  await page.waitForSelector('table[aria-label="DNS records of mail.browser.example.com"]', { timeout: 45_000 });
  expect(await page.$eval('[data-testid="domain-status"]', (el) => el.textContent)).toBe('Pending');
  expect(await page.$('::-p-aria([name="Copy ownership record value"][role="button"])')).not.toBeNull();
  expect(await page.$('::-p-aria([name="Verify now"][role="button"])')).not.toBeNull();

  // The checklist now counts the domain and the contacts.
  await click('Setup', 'link');
  await waitForText('2 of 6 done');

  // Team: the owner is listed and invites someone, who shows as a pending invite.
  await click('Team', 'link');
  await waitForText('Pending invites');
  expect(await page.$eval('table[aria-label="Members"]', (t) => (t as any).innerText)).toContain(me);
  const invitee = email('invitee');
  await fill('Email', invitee);
  await click('Invite');
  await page.waitForSelector('table[aria-label="Pending invites"]', { timeout: 45_000 });
  expect(await page.$eval('table[aria-label="Pending invites"]', (t) => (t as any).innerText)).toContain(invitee);

  // Activity: the feed with its type filters, without an error.
  await click('Activity', 'link');
  await page.waitForSelector('[aria-label="Types shown"]', { timeout: 45_000 });
  await page.waitForFunction(() => !(globalThis as any).document.querySelector('[role="status"]'), { timeout: 45_000 });
  expect(await page.$('[data-testid="error-state"]')).toBeNull();
  expect(s.problems).toEqual([]);
}, 180_000);

it("contacts: a contact's emails and custom fields (add, edit, delete), bulk unsubscribe and bulk delete", async () => {
  // Bulk actions are queued jobs run by the worker.
  await h.startWorker();
  const mailed = email('mailed');
  const sent = await h.http
    .post('/v1/send')
    .set(bearer(secretKey))
    .send({ to: mailed, from: 'hello@browser.example.com', subject: 'Receipt 42', body: '<p>Thanks</p>' });
  expect(sent.status).toBe(200);
  for (const tag of ['bulk-a', 'bulk-b'])
    expect(
      (
        await h.http
          .post('/contacts')
          .set(bearer(secretKey))
          .send({ email: email(tag) })
      ).status,
    ).toBe(201);

  // Bulk: select the page, unsubscribe, then delete after a confirmation; each job's progress to its end.
  await click('Contacts', 'link');
  await replace('Search', 'bulk-');
  await waitForText('2 contacts');
  await s.clickOn('::-p-aria([name="Select all on this page"][role="checkbox"])');
  await waitForText('2 selected');
  await click('Unsubscribe selected');
  await waitForText('Done: 2 contacts unsubscribed');
  const bulk = (await h.http.get('/contacts').query({ search: 'bulk-' }).set(bearer(secretKey))).body.data as Array<{ subscribed: boolean }>;
  expect(bulk.map((c) => c.subscribed)).toEqual([false, false]);
  await s.clickOn('::-p-aria([name="Select all on this page"][role="checkbox"])');
  await click('Delete selected');
  await waitForText('Delete 2 contacts?');
  await click('Delete contacts');
  await waitForText('Done: 2 contacts deleted');
  await waitForText('No contact matches');
  expect((await h.http.get('/contacts').query({ search: 'bulk-' }).set(bearer(secretKey))).body.total).toBe(0);

  // One contact: the emails sent to it, and its custom fields edited.
  await replace('Search', mailed);
  await click(mailed, 'link');
  await page.waitForSelector('table[aria-label="Emails sent to this contact"]', { timeout: 45_000 });
  expect(await page.$eval('table[aria-label="Emails sent to this contact"]', (t) => (t as any).innerText)).toContain('Receipt 42');
  await click('Add field');
  await fill('Field name', 'plan');
  await fill('Value', 'pro');
  await click('Save field');
  await fieldShows('plan', 'pro');
  await click('Edit plan');
  await replace('Value', 'team');
  await click('Save field');
  await fieldShows('plan', 'team');
  const contactId = /\/contacts\/(cnt_[0-9A-Za-z]+)/.exec(page.url())![1];
  expect((await h.http.get(`/contacts/${contactId}`).set(bearer(secretKey))).body.data).toEqual({ plan: 'team' });
  await click('Delete plan');
  await click('Delete field');
  await waitForText('No custom fields');
  expect((await h.http.get(`/contacts/${contactId}`).set(bearer(secretKey))).body.data).toEqual({});
  expect(s.problems).toEqual([]);
}, 120_000);

it('events: names with their counts, the newest of one name, deleting a tracked name', async () => {
  for (const event of ['signed_up', 'signed_up', 'purchase']) {
    expect(
      (
        await h.http
          .post('/events/track')
          .set(bearer(secretKey))
          .send({ email: contact, event, data: { source: 'web' } })
      ).status,
    ).toBeLessThan(300);
  }
  await click('Events', 'link');
  await page.waitForSelector('table[aria-label="Event names"]', { timeout: 45_000 });
  const rows = async () => page.$$eval('table[aria-label="Event names"] tbody tr', (trs) => trs.map((tr) => (tr as any).innerText.replace(/\s+/g, ' ').trim()));
  expect(await rows()).toEqual(expect.arrayContaining([expect.stringMatching(/^purchase 1 /), expect.stringMatching(/^signed_up 2 /)]));
  await click('purchase');
  await page.waitForSelector('table[aria-label="Recent purchase events"]', { timeout: 45_000 });
  expect(await page.$eval('table[aria-label="Recent purchase events"]', (t) => (t as any).innerText)).toContain(contact);
  await click('Delete purchase events');
  await click('Delete events');
  await page.waitForFunction(() => !(globalThis as any).document.querySelector('table[aria-label="Event names"]')?.innerText.includes('purchase'), {
    timeout: 45_000,
  });
  const names = (await h.http.get('/events/names').set(bearer(secretKey))).body.data.map((n: { name: string }) => n.name);
  expect(names).toContain('signed_up');
  expect(names).not.toContain('purchase');
  expect(s.problems).toEqual([]);
}, 60_000);

it('templates: creates one with a server-rendered preview, lists, edits and deletes it', async () => {
  await click('Templates', 'link');
  await waitForText('No templates yet');
  await click('New template', 'link');
  await fill('Name', 'Welcome');
  await fill('Subject', 'Hello {{ first name }}');
  await fill('From', 'hello@browser.example.com');
  // The preview is the server's render (POST /templates/preview) with the preview data, in a sandboxed iframe.
  await replaceCode('Body', '<h1>Hi {{ first name }}</h1>{% if vip %}<p>VIP</p>{% endif %}');
  await replace('Preview data (JSON)', '{"first name": "Ada", "vip": true}');
  const frame = async () => page.$eval('iframe[title="Preview"]', (f) => ({ srcdoc: (f as any).srcdoc as string, sandbox: f.getAttribute('sandbox') }));
  await page.waitForFunction(() => ((globalThis as any).document.querySelector('iframe[title="Preview"]')?.srcdoc ?? '').includes('<p>VIP</p>'), {
    timeout: 45_000,
  });
  expect(await frame()).toEqual({ srcdoc: '<h1>Hi Ada</h1><p>VIP</p>', sandbox: '' });
  await waitForText('Subject: Hello Ada');
  // A Liquid syntax error: the preview's 422 shows on the Body field, with its line.
  await replaceCode('Body', '<p>{% if vip %}never closed</p>');
  await waitForText('not closed, line:1');
  await replaceCode('Body', '<p>Welcome, {{ first name }}</p>');
  await page.waitForFunction(() => ((globalThis as any).document.querySelector('iframe[title="Preview"]')?.srcdoc ?? '') === '<p>Welcome, Ada</p>', {
    timeout: 45_000,
  });
  // The API's validation message shows on its field.
  await replace('From', 'not an address');
  await click('Create template');
  await waitForText('From address must be a valid email address');
  await replace('From', 'hello@browser.example.com');
  await click('Create template');
  await page.waitForFunction(() => /\/templates\/[0-9a-f-]{36}$/.test((globalThis as any).location.pathname), { timeout: 45_000 });
  // The saved template's own editor (the new-template page is replaced, not updated).
  await page.waitForSelector('::-p-aria([name="Duplicate"][role="button"])', { timeout: 45_000 });
  const stored = await h.http.get('/templates').set(bearer(secretKey));
  expect(stored.body.data).toEqual([
    expect.objectContaining({ name: 'Welcome', subject: 'Hello {{ first name }}', body: '<p>Welcome, {{ first name }}</p>', text: null, type: 'MARKETING' }),
  ]);

  // Listed; opened; edited.
  await click('← Templates', 'link');
  await page.waitForSelector('table[aria-label="Templates"]', { timeout: 45_000 });
  expect(await page.$eval('table[aria-label="Templates"]', (t) => (t as any).innerText)).toContain('Hello {{ first name }}');
  await click('Welcome', 'link');
  await replace('Subject', 'Welcome aboard, {{ first name }}');
  // Previewed as a contact picked by a server-side search: its fields fill the template.
  await replaceCode('Body', '<p>Welcome, {{ first name }}: {{ plan ?? "free" }}</p>');
  // The saved template's editor starts from its own sample data: this preview names the field it uses.
  await replace('Preview data (JSON)', '{"first name": "Ada"}');
  await page.waitForFunction(() => ((globalThis as any).document.querySelector('iframe[title="Preview"]')?.srcdoc ?? '') === '<p>Welcome, Ada: free</p>', {
    timeout: 45_000,
  });
  await fill('Preview as', contact.slice(0, 12));
  // Click once the server's search has answered (the list is replaced when it does).
  await page
    .waitForFunction(
      (c: string) => {
        // Only the picker's options are addresses (the other selects keep theirs mounted, hidden).
        const options = [...(globalThis as any).document.querySelectorAll('[role="option"]')].filter((o: any) => o.textContent.includes('@'));
        return options.length === 1 && options[0].textContent.trim() === c;
      },
      { timeout: 45_000 },
      contact,
    )
    .catch(async (err) => {
      const seen = await page.$$eval('[role="option"]', (os) => os.map((o) => `${o.textContent} ${o.getAttribute('aria-hidden')}`));
      throw new Error(`${err}: options ${JSON.stringify(seen)}`);
    });
  await click(contact, 'option');
  await page.waitForFunction(() => ((globalThis as any).document.querySelector('iframe[title="Preview"]')?.srcdoc ?? '') === '<p>Welcome, Ada: pro</p>', {
    timeout: 45_000,
  });
  // "Publish" saves the draft and makes it the version that is sent.
  await click('Publish');
  await click('Publish version');
  await waitForText('Published version 2');
  expect((await h.http.get(`/templates/${stored.body.data[0].id}`).set(bearer(secretKey))).body.subject).toBe('Welcome aboard, {{ first name }}');
  await waitForText('Not used by any workflow');

  // A test send of the saved template, with the preview data for that send only.
  await click('Send test');
  const tester = email('tester');
  // Prefilled with the signed-in person's address: replaced.
  await replace('Send to', tester);
  await click('Send');
  await waitForText(`Queued for ${tester}`);
  const testEmail = await h.deps.knex('emails').where({ project_id: projectId, to_email: tester }).first();
  expect(testEmail).toMatchObject({
    template_id: stored.body.data[0].id,
    subject: 'Welcome aboard, {{ first name }}',
    variables: expect.objectContaining({ 'first name': 'Ada' }),
  });
  expect((await h.http.get('/contacts').query({ search: tester }).set(bearer(secretKey))).body.data[0].data).toEqual({});
  await click('Close');
  await page.waitForFunction(() => !(globalThis as any).document.body.innerText.includes('Send a test email'), { timeout: 45_000 });

  // Deleted after a confirmation.
  await click('Delete');
  await waitForText('Delete this template?');
  await click('Delete template');
  await waitForText('No templates yet');
  expect((await h.http.get('/templates').set(bearer(secretKey))).body.total).toBe(0);
  expect(s.problems).toEqual([]);
}, 120_000);

it('webhooks: adds an endpoint (secret shown once), sends a test, rotates its secret, disables and deletes it', async () => {
  await click('Webhooks', 'link');
  await waitForText('No webhook endpoints yet');
  // The API's 422 shows on the field.
  await fill('Endpoint URL', 'not a url');
  await click('Add endpoint');
  await page.waitForFunction(() => !!(globalThis as any).document.querySelector('input[aria-invalid="true"]'), { timeout: 45_000 });
  await replace('Endpoint URL', 'https://hooks.example.test/svc');
  await fill('Description', 'CRM');
  await click('Add endpoint');
  await page.waitForSelector('[data-testid="webhook-secret"]', { timeout: 45_000 });
  const secret = await page.$eval('[data-testid="webhook-secret"]', (el) => el.textContent!);
  expect(secret).toMatch(/^whsec_/);
  const [stored] = (await h.http.get('/webhook-endpoints').set(bearer(secretKey))).body;
  expect(stored).toMatchObject({ url: 'https://hooks.example.test/svc', events: ['email.*'], description: 'CRM', enabled: true });
  expect(stored).not.toHaveProperty('secret');

  // A test message is queued and shows in the delivery log.
  await click('Send test');
  await page.waitForSelector('table[aria-label="Deliveries of https://hooks.example.test/svc"]', { timeout: 45_000 });
  expect(await page.$eval('table[aria-label="Deliveries of https://hooks.example.test/svc"]', (t) => (t as any).innerText)).toContain('webhook.test');

  // Rotation asks first, then shows the new secret once.
  await click('Rotate secret');
  await waitForText('Rotate the signing secret?');
  await click('Rotate now');
  await page.waitForFunction(
    (old: string) => {
      const el = (globalThis as any).document.querySelector('[data-testid="webhook-secret"]');
      return el && el.textContent !== old;
    },
    { timeout: 45_000 },
    secret,
  );
  await waitForText('The previous secret also signs every call until');

  // Edited in a dialog (whose labels repeat the create form's: its own input is picked).
  await click('Edit');
  await waitForText('Edit the endpoint');
  const inDialog = await page.waitForFunction(
    () => {
      const dialog = (globalThis as any).document.querySelector('[role="dialog"]');
      const label = [...(dialog?.querySelectorAll('label') ?? [])].find((x: any) => x.textContent.trim() === 'Description') as any;
      return label?.htmlFor || null;
    },
    { timeout: 45_000 },
  );
  await page.click(`[id="${await inDialog.jsonValue()}"]`, { clickCount: 3 });
  await page.keyboard.type('CRM sync');
  await click('Save endpoint');
  await waitForText('CRM sync');
  expect((await h.http.get(`/webhook-endpoints/${stored.id}`).set(bearer(secretKey))).body.description).toBe('CRM sync');

  // Disabled, then deleted after a confirmation.
  await click('Enabled: https://hooks.example.test/svc', 'switch');
  await page.waitForFunction(() => (globalThis as any).document.querySelector('[data-testid="webhook-status"]')?.textContent === 'Disabled', {
    timeout: 45_000,
  });
  expect((await h.http.get(`/webhook-endpoints/${stored.id}`).set(bearer(secretKey))).body.enabled).toBe(false);
  await click('Delete');
  await waitForText('Delete this endpoint?');
  await click('Delete endpoint');
  await waitForText('No webhook endpoints yet');
  expect((await h.http.get('/webhook-endpoints').set(bearer(secretKey))).body).toEqual([]);
  expect(s.problems).toEqual([]);
}, 120_000);

it('settings: renames the project, sets the sending policy (field errors shown), resets and deletes the project', async () => {
  await click('Settings', 'link');
  await waitForText('Danger zone');
  await replace('Project name', 'Renamed project');
  await click('Rename');
  await waitForText('Renamed.');
  expect((await h.http.get('/settings').set(bearer(secretKey))).status).toBe(200);

  // Quiet hours with a bad time: the 422's message on that input; then a good one, saved.
  await click('Quiet hours', 'switch');
  await replace('Quiet from', '25:00');
  await fill('Send rate (emails per second)', '5');
  await click('Save sending settings');
  await waitForText('must be a 24-hour HH:MM time');
  await replace('Quiet from', '22:00');
  await click('Save sending settings');
  await waitForText('Saved.');
  expect((await h.http.get('/settings').set(bearer(secretKey))).body).toMatchObject({
    quietHours: { start: '22:00', end: '08:00' },
    frequencyCap: null,
    sendRatePerSecond: 5,
  });

  // Reset: confirmed by typing the project's name; the data goes, the project stays.
  expect((await h.http.get('/contacts').set(bearer(secretKey))).body.total).toBeGreaterThan(0);
  await click('Reset project');
  await waitForText('Reset this project?');
  await fill('Type the project name (Renamed project) to confirm', 'Renamed project');
  await click('Wipe the data');
  await waitForText('rows deleted');
  expect((await h.http.get('/contacts').set(bearer(secretKey))).body.total).toBe(0);
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => !(globalThis as any).document.body.innerText.includes('Reset this project?'), { timeout: 45_000 });

  // Delete: the same confirmation; the project is gone and the app leaves it.
  await click('Delete project');
  await waitForText('Delete this project?');
  await fill('Type the project name (Renamed project) to confirm', 'Renamed project');
  await click('Delete for good');
  await page.waitForFunction((id: string) => !(globalThis as any).location.pathname.includes(id), { timeout: 45_000 }, projectId);
  expect((await h.http.get('/contacts').set(bearer(secretKey))).status).toBe(401);
  // Without a project the user is offered a new one.
  await waitForText('Project name');
  expect(page.url()).toBe(`${s.api.url}/app/new-project`);
  await fill('Project name', 'Second project');
  await click('Create project');
  await waitForText('Setup checklist');
  expect(s.problems).toEqual([]);
}, 120_000);

it('logs out', async () => {
  // Log out (POST /auth/logout): back at the sign-in form, and the cookie no longer opens a page.
  await click('Log out');
  await page.waitForSelector('::-p-aria([name="Log in"][role="button"])', { timeout: 45_000 });
  expect(await page.evaluate(async () => (await fetch('/users/@me')).status)).toBe(401);
  expect(s.problems).toEqual([]);
}, 180_000);
