import crypto from 'node:crypto';
import type { Page } from 'puppeteer-core';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { launchBrowser, startLocalServer, LocalServer, TestBrowser } from '../helpers/browser';
import { confirmUrlFor, linksFor } from '../../lib/unsubscribe';
import { verifiedDomain } from '../helpers/fixtures';

/**
 * The pages the service's own emails link to, and /v1/track from another site's page, in a real
 * headless Chromium (Debian's package, driven by puppeteer-core).
 */

let api: LocalServer;
let site: LocalServer;
let h: Harness;
let p: ProjectFixture;
let tb: TestBrowser;
let page: Page;
/** CSP violations and script errors the pages cause; every test expects none. */
let problems: string[];

beforeAll(async () => {
  api = await startLocalServer();
  site = await startLocalServer();
  h = await startHarness({ env: { APP_URL: api.url } });
  api.handle(h.built.app.callback());
  p = await createProjectFixture(h, 'pages');
  tb = await launchBrowser();
});
afterAll(async () => {
  await tb?.close();
  await h?.stop();
  await api?.close();
  await site?.close();
});
beforeEach(async () => {
  problems = [];
  page = await tb.browser.newPage();
  page.on('console', (m) => {
    // Error pages answer 4xx on purpose (and there is no favicon); anything else (a CSP refusal) counts.
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(String(e)));
});
afterEach(async () => {
  await page?.close();
});

const text = (selector = 'body') => page.$eval(selector, (el: any) => el.innerText as string);
const email = (tag: string) => `${tag}-${crypto.randomBytes(5).toString('hex')}@example.test`;

/** The link in the newest system email to `to` (the log transport keeps its variables). */
async function linkMailedTo(to: string): Promise<string> {
  const row = await h.deps.knex('emails').where({ to_email: to }).orderBy('created_at', 'desc').first('variables');
  if (!row) throw new Error(`no email to ${to}`);
  // Account emails now link to the dashboard's screens (/app/…); these server pages stay for the
  // links mailed before, so the tests open the server page of the same token.
  return (row.variables.url as string).replace(`${api.url}/app/`, `${api.url}/`);
}

async function open(url: string) {
  const res = await page.goto(url, { waitUntil: 'load' });
  expect(res!.headers()['content-security-policy']).toMatch(/default-src 'none'/);
  // The stylesheet loaded under the CSP: its rules apply.
  expect(await page.$eval('body', (b: any) => (globalThis as any).getComputedStyle(b).maxWidth)).toBe('512px');
  expect(await page.$$eval('script', (s) => s.length)).toBe(0);
  return res!;
}

async function submit() {
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button[type=submit]')]);
}

async function signedUp(address: string, password = 'correct horse battery') {
  const res = await h.http.post('/auth/signup').send({ email: address, password });
  expect(res.status).toBe(201);
  return (res.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
}

describe('verify-email page', () => {
  it('verifies on the button press, not on opening the link', async () => {
    const address = email('verify');
    const cookie = await signedUp(address);
    expect((await h.http.post('/auth/request-verification').set('Cookie', cookie)).status).toBe(200);
    const link = await linkMailedTo(address);
    expect(link.startsWith(`${api.url}/verify-email?token=`)).toBe(true);

    await open(link);
    expect(await text('h1')).toBe('Verify your email address');
    const user = () => h.deps.knex('users').where({ email: address }).first('email_verified');
    expect((await user()).email_verified).toBe(false);

    await submit();
    expect(await text('h1')).toBe('Email address verified');
    expect(await text()).toContain(address);
    expect((await user()).email_verified).toBe(true);

    // The link works once.
    await open(link);
    await submit();
    expect(await text('.error')).toMatch(/invalid, was already used or has expired/);
    expect(problems).toEqual([]);
  });
});

describe('reset-password page', () => {
  it('sets the new password from the emailed link, after refusing a short one', async () => {
    const address = email('reset');
    await signedUp(address, 'the old password');
    expect((await h.http.post('/auth/request-password-reset').send({ email: address })).status).toBe(200);
    const link = await eventually(() => linkMailedTo(address).catch(() => null));
    expect(link.startsWith(`${api.url}/reset-password?token=`)).toBe(true);

    await open(link);
    // The browser's own minlength check would stop a short one; the server must refuse it too.
    await page.$eval('input[name=password]', (i: any) => i.removeAttribute('minlength'));
    await page.type('input[name=password]', 'short');
    await submit();
    expect(await text('.error')).toMatch(/at least 8/);

    await page.type('input[name=password]', 'a brand new password');
    await submit();
    expect(await text('h1')).toBe('Password changed');
    expect((await h.http.post('/auth/login').send({ email: address, password: 'a brand new password' })).status).toBe(200);
    expect((await h.http.post('/auth/login').send({ email: address, password: 'the old password' })).status).toBe(401);
    expect(problems).toEqual([]);
  });
});

describe('invite page', () => {
  it('sends a visitor to sign up and verify first, then accepts on the button press of the signed-in invitee', async () => {
    const invitee = email('invitee');
    const invited = await h.http.post(`/projects/${p.projectId}/members`).set('Cookie', p.cookie).send({ email: invitee, role: 'MEMBER' });
    expect(invited.status).toBe(202);
    const link = await linkMailedTo(invitee);
    expect(link.startsWith(`${api.url}/invite?token=`)).toBe(true);
    const isMember = async () =>
      (await h.http.get(`/projects/${p.projectId}/members`).set('Cookie', p.cookie)).body.members.some((m: { email: string }) => m.email === invitee);

    // Not signed in: the offer, and what to do first; no button.
    await open(link);
    expect(await text('h1')).toBe('Join your team');
    expect(await text()).toContain('to the project pages as MEMBER');
    expect(await page.$$('button')).toHaveLength(0);
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('a[href^="/signup"]')]);
    expect(await page.$eval('input[name=email]', (i: any) => i.value)).toBe(invitee);
    await page.type('input[name=password]', 'invitee password');
    await submit();
    expect(await text('h1')).toBe('Check your inbox');

    await open(await linkMailedTo(invitee));
    await submit();
    expect(await text('h1')).toBe('Email address verified');
    // Verifying the address is not accepting the invitation.
    expect(await isMember()).toBe(false);

    const login = await h.http.post('/auth/login').send({ email: invitee, password: 'invitee password' });
    const session = (login.headers['set-cookie'] as unknown as string[])[0].split(';')[0].split('=');
    await page.setCookie({ name: session[0], value: session[1], url: api.url });
    await open(link);
    expect(await isMember()).toBe(false);
    expect(await text('button')).toBe('Accept invite');
    await submit();
    expect(await text('h1')).toBe('Invitation accepted');
    expect(await text()).toContain('You joined pages as MEMBER');
    expect(await isMember()).toBe(true);

    // The link works once.
    await open(link);
    expect(await text('.error')).toMatch(/invalid, was already used or has expired/);
    expect(problems).toEqual([]);
  });
});

describe('subscription manage page', () => {
  it('shows the state and unsubscribes with its button, a form POST without script', async () => {
    const address = email('manage');
    const created = await h.http.post('/contacts').set(bearer(p.secretKey)).send({ email: address, subscribed: true });
    expect(created.status).toBe(201);
    await open(linksFor(h.config, p.projectId, created.body.id).manageUrl);
    expect(await text()).toContain(`${address} is subscribed to these emails.`);
    expect(await page.$$('script')).toEqual([]);
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button')]);
    expect(await text('h1')).toBe('You have been unsubscribed');
    expect((await h.http.get(`/contacts/${created.body.id}`).set(bearer(p.secretKey))).body.subscribed).toBe(false);
    expect(problems).toEqual([]);
  });

  it('opens the unsubscribe link without unsubscribing; the button does it', async () => {
    const address = email('unsub');
    const created = await h.http.post('/contacts').set(bearer(p.secretKey)).send({ email: address, subscribed: true });
    expect(created.status).toBe(201);
    const state = async () => (await h.http.get(`/contacts/${created.body.id}`).set(bearer(p.secretKey))).body.subscribed;
    // The pages must work for readers who turned script off.
    await page.setJavaScriptEnabled(false);
    await open(linksFor(h.config, p.projectId, created.body.id).unsubscribeUrl);
    expect(await text()).toContain(`Press the button to stop receiving these emails at ${address}.`);
    expect(await state()).toBe(true);
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button')]);
    expect(await text('h1')).toBe('You have been unsubscribed');
    expect(await state()).toBe(false);
    // The result page's button subscribes again, also by POST.
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button')]);
    expect(await text('h1')).toBe('You are subscribed');
    expect(await state()).toBe(true);
    expect(problems).toEqual([]);
  });
});

describe('preference center', () => {
  it('changes topic states with its checkboxes and Save button, script off, and unsubscribes from everything', async () => {
    const key = bearer(p.secretKey);
    const slug = `pc-${crypto.randomBytes(3).toString('hex')}`;
    const topic = await h.http
      .post('/topics')
      .set(key)
      .send({ name: `Topic ${slug}`, slug });
    expect(topic.status).toBe(201);
    const created = await h.http
      .post('/contacts')
      .set(key)
      .send({ email: email('prefs'), subscribed: true });
    const states = async () => (await h.http.get(`/contacts/${created.body.id}`).set(key)).body;
    await page.setJavaScriptEnabled(false);
    await open(linksFor(h.config, p.projectId, created.body.id).manageUrl);
    expect(await page.$$('script')).toEqual([]);
    expect(await text()).toContain(`Topic ${slug}`);
    await page.click(`input[type=checkbox][value="${topic.body.id}"]`);
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('form button')]);
    expect(await text()).toContain('Your preferences were saved.');
    expect(await page.$eval(`input[type=checkbox][value="${topic.body.id}"]`, (el: any) => el.checked)).toBe(true);
    expect((await states()).topics[slug]).toBe(true);
    const everything = await page.$$('button');
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), everything[everything.length - 1].click()]);
    expect(await text('h1')).toBe('You have been unsubscribed');
    expect((await states()).subscribed).toBe(false);
    expect(problems).toEqual([]);
  });
});

describe('double opt-in confirmation page', () => {
  it('confirms with its button, script off, and shows the expired page when opened again', async () => {
    const key = bearer(p.secretKey);
    await verifiedDomain(h, p.projectId, 'optin-pages.example.com');
    expect(
      (
        await h.http
          .patch('/settings')
          .set(key)
          .send({ doubleOptIn: { enabled: false, from: 'hi@optin-pages.example.com' } })
      ).status,
    ).toBe(200);
    const created = await h.http
      .post('/contacts')
      .set(key)
      .send({ email: email('confirm'), doubleOptIn: true });
    expect(created.body).toMatchObject({ subscribed: false, pending: true });
    const url = confirmUrlFor(h.config, p.projectId, created.body.id);
    await page.setJavaScriptEnabled(false);
    await open(url);
    expect(await page.$$('script')).toEqual([]);
    expect(await text('h1')).toBe('Confirm your subscription');
    expect((await h.http.get(`/contacts/${created.body.id}`).set(key)).body.subscribed).toBe(false);
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button')]);
    expect(await text('h1')).toBe('Your subscription is confirmed');
    expect((await h.http.get(`/contacts/${created.body.id}`).set(key)).body).toMatchObject({ subscribed: true, pending: false });
    // The link again (Back re-fetches: the pages are not cached): used once, it offers nothing more.
    await open(url);
    expect(await text('h1')).toBe('This link has expired');
    expect(await page.$$('button')).toEqual([]);
    expect(problems).toEqual([]);
  });
});

describe('/v1/track from a page on another origin', () => {
  it('tracks with the public key through fetch and reads the answer, while a secret-key route stays closed', async () => {
    // The other site: a page whose script calls the API like a shop's tracking snippet would.
    const script = `
      const api = ${JSON.stringify(api.url)};
      window.results = (async () => {
        const res = await fetch(api + '/v1/track', {
          method: 'POST',
          headers: { Authorization: 'Bearer ${p.publicKey}', 'Content-Type': 'application/json', 'Idempotency-Key': 'page-${crypto.randomUUID()}' },
          body: JSON.stringify({ event: 'page.viewed', email: 'visitor@example.test', data: { path: '/pricing' } }),
        });
        const track = { status: res.status, body: await res.json(), requestId: res.headers.get('X-Request-Id'), remaining: res.headers.get('RateLimit-Remaining') };
        let send;
        try {
          const s = await fetch(api + '/v1/send', { method: 'POST', headers: { Authorization: 'Bearer ${p.secretKey}', 'Content-Type': 'application/json' }, body: '{}' });
          send = 'readable ' + s.status;
        } catch (err) {
          send = 'blocked';
        }
        return { track, send };
      })();`;
    site.handle((req, res) => {
      if (req.url === '/app.js') res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(script);
      else res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>shop</title><script src="/app.js"></script>');
    });
    await page.goto(site.url, { waitUntil: 'load' });
    const results = await page.evaluate(() => (globalThis as any).results);
    expect(results.track.status).toBe(200);
    expect(results.track.body).toMatchObject({ success: true, data: { event: expect.any(String), contact: expect.any(String) } });
    expect(results.track.requestId).toMatch(/^req_/);
    expect(Number(results.track.remaining)).toBeGreaterThan(0);
    expect(results.send).toBe('blocked');
    const event = await h.deps.knex('events').where({ id: results.track.body.data.event }).first('name', 'data');
    expect(event).toMatchObject({ name: 'page.viewed', data: { path: '/pricing' } });
  });
});
