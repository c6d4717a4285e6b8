import type { Page } from 'puppeteer-core';
import { eventually, Harness } from '../helpers/harness';
import { openDashboard, DashboardSession, testEmail } from '../helpers/dashboardSession';

/**
 * The account flows in a real browser (docs/dashboard.md "Your account"): the verification banner
 * and its resend, a teammate who signs up from the invite link and lands in the project, a password
 * change on the account screen, and a forgotten password reset from the mailed link. One browser,
 * one app; mails are read from their rows.
 */

let s: DashboardSession;
let h: Harness;
let page: Page;
/** The newcomer of the first test and their project; the tests after it build on both. */
let owner: { email: string; projectId: string };
const PASSWORD = 'correct horse battery';

beforeAll(async () => {
  s = await openDashboard();
  ({ h, page } = s);
}, 300_000);
afterAll(async () => s?.close());

const mails = (to: string, subject: string) =>
  h.deps.knex('emails').whereNull('project_id').where({ to_email: to }).where('subject', 'like', `${subject}%`).orderBy('created_at', 'desc');
/** The link of the newest mail to `to` whose subject starts with `subject`. */
const linkMailedTo = async (to: string, subject: string) => (await eventually(async () => (await mails(to, subject))[0])).variables.url as string;
const cookieOf = (res: { headers: Record<string, any> }) => (res.headers['set-cookie'] as string[])[0].split(';')[0];
const browserCookie = async () => `token=${(await page.cookies()).find((c) => c.name === 'token')!.value}`;
const logOut = async () => {
  await s.click('Log out');
  await s.waitForText('New here?');
};

it('asks a newcomer to confirm the address until they do, with a resend button', async () => {
  const { email, projectId } = await s.signUp('Account project');
  owner = { email, projectId };
  // The sign-up sent the first verification email; the banner stays until the address is confirmed.
  await linkMailedTo(email, 'Verify');
  await s.waitForText('Confirm your email address');
  await s.click('Resend verification email');
  await s.waitForText(`Verification email sent to ${email}`);
  expect(await mails(email, 'Verify')).toHaveLength(2);

  const link = await linkMailedTo(email, 'Verify');
  expect(link.startsWith(`${s.api.url}/app/verify-email?token=`)).toBe(true);
  await page.goto(link, { waitUntil: 'load' });
  await s.click('Confirm email address');
  await s.waitForText('Email address confirmed');
  await s.click('Continue to the dashboard', 'link');
  await s.waitForText('Setup checklist');
  expect(await page.$('[data-testid="verify-banner"]')).toBeNull();
  expect(s.problems).toEqual([]);
});

it('lets an invited teammate sign up from the invite link and land in the project, with no second email', async () => {
  const invitee = testEmail('invitee');
  const invited = await h.http
    .post(`/projects/${owner.projectId}/members`)
    .set('Cookie', await browserCookie())
    .send({ email: invitee, role: 'MEMBER' });
  expect(invited.status).toBe(202);
  await logOut();

  const link = await linkMailedTo(invitee, 'You are invited');
  expect(link.startsWith(`${s.api.url}/app/invite?token=`)).toBe(true);
  await page.goto(link, { waitUntil: 'load' });
  await s.waitForText('Join your team');
  await s.waitForText('Account project');
  await s.click('Create an account', 'link');
  await s.waitForText('Create your account');
  expect(await page.$eval(await s.inputId('Email'), (i: any) => i.value)).toBe(invitee);
  await s.replace('Password', PASSWORD);
  await s.click('Sign up');
  await page.waitForFunction((p: string) => (globalThis as any).location.pathname === `/app/p/${p}`, { timeout: 45_000 }, owner.projectId);
  await s.waitForText('Account project');
  expect(await page.$('[data-testid="verify-banner"]')).toBeNull();
  expect(await mails(invitee, 'Verify')).toHaveLength(0);
  expect((await h.deps.knex('users').where({ email: invitee }).first()).email_verified).toBe(true);
  expect(s.problems).toEqual([]);
});

it('changes the password on the account screen, keeping this session and ending the others', async () => {
  const me = (await h.http.get('/users/@me').set('Cookie', await browserCookie())).body.email as string;
  const phone = cookieOf(await h.http.post('/auth/login').send({ email: me, password: PASSWORD }));
  await s.click('Account', 'link');
  await s.waitForText('Your account');
  await s.waitForText('Current password');
  await s.waitForText('Two-factor authentication');
  await s.waitForText('Sign out everywhere');
  await s.replace('Current password', 'not my password');
  await s.replace('New password', 'a brand new password');
  await s.click('Change password');
  await s.waitForText('The password is wrong');
  expect((await h.http.get('/users/@me').set('Cookie', phone)).status).toBe(200);

  await s.replace('Current password', PASSWORD);
  await s.replace('New password', 'a brand new password');
  await s.click('Change password');
  await s.waitForText('Password changed');
  expect((await h.http.get('/users/@me').set('Cookie', phone)).status).toBe(401);
  expect((await h.http.get('/users/@me').set('Cookie', await browserCookie())).status).toBe(200);
  expect((await h.http.post('/auth/login').send({ email: me, password: 'a brand new password' })).status).toBe(200);
  expect(s.problems).toEqual([]);
});

it('resets a forgotten password from the mailed link and signs in; the used link offers a new one', async () => {
  await s.click('Back to the dashboard', 'link');
  await logOut();
  await s.click('Forgot your password?', 'link');
  await s.waitForText('Reset your password');
  await s.replace('Email', owner.email);
  await s.click('Send reset link');
  await s.waitForText('If an account exists for this address');

  const link = await linkMailedTo(owner.email, 'Reset');
  expect(link.startsWith(`${s.api.url}/app/reset-password?token=`)).toBe(true);
  await page.goto(link, { waitUntil: 'load' });
  await s.waitForText('Choose a new password');
  await s.replace('New password', 'the reset password');
  await s.click('Reset password');
  // Signed in: straight into the project.
  await page.waitForFunction((p: string) => (globalThis as any).location.pathname === `/app/p/${p}`, { timeout: 45_000 }, owner.projectId);
  await s.waitForText(owner.email);

  await page.goto(link, { waitUntil: 'load' });
  await s.waitForText('Choose a new password');
  await s.replace('New password', 'yet another password');
  await s.click('Reset password');
  await s.waitForText('This link no longer works');
  await s.waitForText('Send reset link');
  expect((await h.http.post('/auth/login').send({ email: owner.email, password: 'the reset password' })).status).toBe(200);
  expect(s.problems).toEqual([]);
});
