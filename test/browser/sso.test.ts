import crypto from 'node:crypto';
import type { Page } from 'puppeteer-core';
import { launchBrowser, type TestBrowser } from '../helpers/browser';
import { startApiProcess, type ApiProcess } from '../helpers/apiProcess';
import { startOidcProvider, type OidcProvider } from '../helpers/oidcProvider';
import { freePort } from '../../worker/devServer';
import { ensureDashboardBuilt } from '../../scripts/buildWeb';

/**
 * "Sign in with SSO" in a real Chromium: the dashboard's login screen → the OpenID provider's login
 * form (oidc-provider, test/fixtures/oidcProvider.mjs) → back in the dashboard, signed in. The API
 * runs as its own process (openid-client is ESM only: test/integration/sso.test.ts says why).
 */

let provider: OidcProvider;
let api: ApiProcess;
let tb: TestBrowser;
let page: Page;

beforeAll(async () => {
  await ensureDashboardBuilt(() => undefined);
  const port = await freePort();
  provider = await startOidcProvider([`http://127.0.0.1:${port}/auth/sso/callback`]);
  api = await startApiProcess(
    { OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: provider.clientId, OIDC_CLIENT_SECRET: provider.clientSecret, OIDC_NAME: 'Test IdP' },
    port,
  );
  tb = await launchBrowser();
  page = await tb.browser.newPage();
}, 300_000);

afterAll(async () => {
  await tb?.close();
  await api?.stop();
  await provider?.stop();
});

const bodyText = () => page.evaluate(() => (globalThis as any).document.body.innerText as string);
const waitForText = (text: string) => page.waitForFunction((t: string) => (globalThis as any).document.body.innerText.includes(t), { timeout: 45_000 }, text);

it('signs a newcomer in through the provider and lands in the dashboard', async () => {
  // A refused attempt comes back with a sentence, not a code.
  await page.goto(`${api.url}/app/login?error=email_unverified`);
  await waitForText('Your identity provider has not verified your email address.');

  await page.goto(`${api.url}/app/login`);
  await waitForText('Sign in with SSO');
  expect(await bodyText()).toContain('Test IdP');
  await Promise.all([page.waitForNavigation(), page.click('::-p-aria([name="Sign in with SSO"][role="link"])')]);
  expect(page.url().startsWith(provider.issuer)).toBe(true);

  const me = `sso-browser-${crypto.randomBytes(4).toString('hex')}@example.test`;
  await page.waitForSelector('input[name="login"]');
  await page.type('input[name="login"]', me);
  await page.type('input[name="password"]', 'anything');
  await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);

  // Back on the dashboard, signed in: a new account's first stop is the project form.
  await page.waitForFunction((url: string) => (globalThis as any).location.href === url, { timeout: 45_000 }, `${api.url}/app/new-project`);
  await waitForText('Project name');
  const res = (await page.evaluate(async () => (await fetch('/users/@me')).json())) as { email: string };
  expect(res.email).toBe(me);
}, 120_000);
