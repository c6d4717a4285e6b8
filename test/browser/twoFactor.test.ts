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
let projectId: string;

beforeAll(async () => {
  s = await openDashboard();
  ({ page } = s);
}, 300_000);
afterAll(async () => s?.close());

/** The app's code `steps` time steps from now: the enrolment spent the current step's code. */
const codeAt = (secret: string, steps: number) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + steps * 30_000 });

async function signOut() {
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
  const signedUp = await s.signUp('Two-factor project');
  projectId = signedUp.projectId;
  const { email } = signedUp;

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

  await signOut();
  await passwordStep(email);
  await s.replace('Authentication code', codeAt(secret, 1));
  await s.click('Verify');
  await s.waitForText('Setup checklist');

  await signOut();
  await passwordStep(email);
  await s.click('Use a recovery code');
  await s.replace('Recovery code', codes[0]);
  await s.click('Verify');
  await s.waitForText('Setup checklist');

  await page.goto(`${s.api.url}/app/account/two-factor`, { waitUntil: 'load' });
  await s.waitForText('9 of 10 recovery codes left');
  expect(s.problems).toEqual([]);
});

const SWITCH = 'section[aria-label="Security"] input[role="switch"]';

it('lets the owner require 2FA in Settings; a member without it is shown the way to set it up', async () => {
  await page.goto(`${s.api.url}/app/p/${projectId}/settings`, { waitUntil: 'load' });
  // Enabled once the page knows the owner has 2FA themselves.
  await page.waitForSelector(`${SWITCH}:not([disabled])`);
  await s.click('Require two-factor authentication', 'switch');
  await page.waitForFunction((sel: string) => (globalThis as any).document.querySelector(sel)?.checked === true, { timeout: 45_000 }, SWITCH);
  const row = await s.h.deps.knex('projects').where({ id: projectId }).first('require_two_factor');
  expect(row.require_two_factor).toBe(true);

  // A member without 2FA (added as the invite flow would, straight into the table).
  const member = `member-${Date.now()}@example.test`;
  const signup = await s.h.http.post('/auth/signup').send({ email: member, password: 'correct horse battery' });
  await s.h.deps.knex('project_members').insert({ project_id: projectId, user_id: signup.body.id, role: 'MEMBER' });
  await signOut();
  await s.replace('Email', member);
  await s.replace('Password', 'correct horse battery');
  await s.click('Log in');
  await s.waitForText('Two-factor authentication required');
  await s.click('Set up two-factor authentication', 'link');
  await s.waitForText('Enable two-factor authentication');
  expect(page.url()).toBe(`${s.api.url}/app/account/two-factor`);
  expect(s.problems).toEqual([]);
});
