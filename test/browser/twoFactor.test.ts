import type { Page } from 'puppeteer-core';
import { Secret, TOTP } from 'otpauth';
import { openDashboard, DashboardSession } from '../helpers/dashboardSession';

/**
 * Two-factor authentication in a real headless Chromium against the real app: enrol on
 * /app/account/two-factor (QR code, secret, first code, recovery codes shown once), sign out, sign
 * in with password + "Authentication code", sign out, sign in with "Use a recovery code".
 */

let s: DashboardSession;
let page: Page;

beforeAll(async () => {
  s = await openDashboard();
  ({ page } = s);
}, 300_000);
afterAll(async () => s?.close());

/** The app's code `steps` time steps from now: the enrolment spent the current step's code. */
const codeAt = (secret: string, steps: number) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + steps * 30_000 });

async function signOut(projectId: string) {
  await page.goto(`${s.api.url}/app/p/${projectId}`, { waitUntil: 'load' });
  await s.click('Log out');
  await s.waitForText('New here?');
}

async function passwordStep(email: string) {
  await s.replace('Email', email);
  await s.replace('Password', 'correct horse battery');
  await s.click('Log in');
  await s.waitForText('Authentication code');
}

it('enrols, then signs in with password and code, and with a recovery code', async () => {
  const { projectId, email } = await s.signUp('Two-factor project');

  await page.goto(`${s.api.url}/app/account/two-factor`, { waitUntil: 'load' });
  await s.click('Enable two-factor authentication');
  const secret = await (await page.waitForSelector('[data-testid="two-factor-secret"]'))!.evaluate((el) => el.textContent!.trim());
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  const qr = await page.$eval('img[alt="QR code for your authenticator app"]', (img) => (img as unknown as { src: string; naturalWidth: number }).src);
  expect(qr).toMatch(/^data:image\/png;base64,/);
  await s.replace('Authentication code', codeAt(secret, 0));
  await s.click('Verify');
  await s.waitForText('Save your recovery codes');
  const codes = await page.$$eval('[data-testid="recovery-codes"] code', (els) => els.map((e) => e.textContent!.trim()));
  expect(codes).toHaveLength(10);
  await s.click('I have saved my recovery codes');
  await s.waitForText('Two-factor authentication is on');
  await s.waitForText('10 of 10 recovery codes left');

  await signOut(projectId);
  await passwordStep(email);
  await s.replace('Authentication code', codeAt(secret, 1));
  await s.click('Verify');
  await s.waitForText('Setup checklist');

  await signOut(projectId);
  await passwordStep(email);
  await s.click('Use a recovery code');
  await s.replace('Recovery code', codes[0]);
  await s.click('Verify');
  await s.waitForText('Setup checklist');

  await page.goto(`${s.api.url}/app/account/two-factor`, { waitUntil: 'load' });
  await s.waitForText('9 of 10 recovery codes left');
  expect(s.problems).toEqual([]);
});
