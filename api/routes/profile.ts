import { route } from '../route';
import { ApiError, conflict, notFound, validationError } from '../errors';
import { Done, EmailChange, EmailChanged, MeOut, ProfileBody, PasswordChange, SessionOut, SessionParams } from '../schemas/profile';
import { TokenBody } from '../schemas/account';
import { presentSession, presentUser } from '../presenters/users';
import { changePassword, normalizeEmail, updateProfile } from '../../db/users';
import { confirmEmailChange, emailTaken } from '../../db/accounts';
import { listSessions, revokeSession } from '../../db/sessions';
import { verifyPassword } from '../../lib/password';
import { mailEmailChanged, mailToken, MAX_EMAILS_PER_HOUR } from '../../services/accountEmails';
import { clearSession, SESSION_TTL_SECONDS } from '../sessionCookie';
import { reserveSignIn, signInSucceeded, throttleClient } from '../middleware/authThrottle';
import type { AppContext } from '../context';
import type { UserRow } from '../../db/users';

/**
 * The signed-in person's own account (the dashboard's /app/account): name, password, email address
 * and sessions. These are account-level, not a project's, so they write no project audit entry;
 * each change is logged instead.
 */

const wrongPassword = (field: string) => validationError([{ field, message: 'The password is wrong', code: 'custom' }], 'The password is wrong');

/**
 * Proves the current password, counted like a sign-in (middleware/authThrottle.ts): a stolen
 * cookie cannot be used to guess the password behind it.
 */
async function provePassword(ctx: AppContext, user: UserRow, password: string, field: string): Promise<void> {
  await throttleClient(ctx);
  await reserveSignIn(ctx, user.email);
  if (!(await verifyPassword(password, user.password_hash))) throw wrongPassword(field);
  await signInSucceeded(ctx, user.email);
}

const sessionOf = (ctx: AppContext) => ctx.state.sessionId!;

export default [
  route({
    method: 'patch',
    path: '/users/@me',
    auth: 'session',
    tag: 'users',
    summary: "Change the signed-in user's name (null or empty clears it) and/or dashboard language (null follows the browser)",
    body: ProfileBody,
    responses: { 200: { description: 'the user', schema: MeOut } },
    async handler(ctx, { body, user }) {
      return presentUser(await updateProfile(ctx.deps.knex, user.id, body));
    },
  }),
  route({
    method: 'post',
    path: '/users/@me/password',
    auth: 'session',
    tag: 'users',
    summary: 'Change the password, given the current one; every other session of the account ends, this one stays',
    body: PasswordChange,
    responses: {
      200: { description: 'changed', schema: Done },
      422: { description: 'VALIDATION_ERROR: the current password is wrong (field currentPassword), or the new one too short' },
      429: { description: 'RATE_LIMIT_EXCEEDED: too many wrong passwords' },
    },
    async handler(ctx, { body, user }) {
      await provePassword(ctx, user, body.currentPassword, 'currentPassword');
      await changePassword(ctx.deps.knex, user.id, body.newPassword, sessionOf(ctx));
      ctx.deps.log.info({ userId: user.id, requestId: ctx.state.requestId }, 'account: password changed; other sessions ended');
      return { success: true, message: 'Password changed; your other sessions are signed out' };
    },
  }),
  route({
    method: 'post',
    path: '/users/@me/email',
    auth: 'session',
    tag: 'users',
    summary:
      'Ask to change the email address, given the password: a link goes to the NEW address, and the change applies only when it is opened (POST /auth/confirm-email-change)',
    body: EmailChange,
    responses: {
      202: { description: 'confirmation link mailed to the new address', schema: Done },
      409: { description: 'another account uses this address, or it is the current one' },
      422: { description: 'VALIDATION_ERROR: the password is wrong (field password)' },
      429: { description: 'too many attempts, or too many emails this hour' },
    },
    async handler(ctx, { body, user }) {
      await provePassword(ctx, user, body.password, 'password');
      const email = normalizeEmail(body.email);
      if (email === normalizeEmail(user.email)) throw conflict('This is already the address of your account');
      if (await emailTaken(ctx.deps.knex, email)) throw conflict('Another account uses this address');
      if (!(await mailToken(ctx.deps, user, 'CHANGE_EMAIL', email))) {
        throw new ApiError(429, 'RATE_LIMIT_EXCEEDED', `At most ${MAX_EMAILS_PER_HOUR} email change links per hour`, { headers: { 'Retry-After': '3600' } });
      }
      ctx.deps.log.info({ userId: user.id, requestId: ctx.state.requestId }, 'account: email change requested');
      ctx.status = 202;
      return { success: true, message: `We sent a link to ${email}; your address changes when you open it` };
    },
  }),
  route({
    method: 'post',
    path: '/auth/confirm-email-change',
    // The token (mailed to the new address after the password was given) is the proof: the link
    // may be opened on a device where nobody is signed in.
    auth: 'none',
    tag: 'auth',
    summary: 'Apply an email change with the token mailed to the new address; the old address is told by email',
    body: TokenBody,
    responses: {
      200: { description: 'the address is changed (and verified)', schema: EmailChanged },
      400: { description: 'INVALID_TOKEN: unknown, used or expired' },
      409: { description: 'another account took the address meanwhile' },
      429: { description: 'RATE_LIMIT_EXCEEDED: too many attempts from this address' },
    },
    async handler(ctx, { body }) {
      await throttleClient(ctx);
      const result = await confirmEmailChange(ctx.deps.knex, body.token);
      if (result === 'INVALID') {
        throw new ApiError(400, 'INVALID_TOKEN', 'This link is invalid, was already used or has expired', {
          suggestion: 'Ask for the change again from your account',
        });
      }
      if (result === 'TAKEN') throw conflict('Another account uses this address now');
      ctx.deps.log.info({ userId: result.user.id, requestId: ctx.state.requestId }, 'account: email address changed');
      await mailEmailChanged(ctx.deps, result.oldEmail, result.user.email);
      return { id: result.user.id, email: result.user.email, emailVerified: true as const };
    },
  }),
  route({
    method: 'get',
    path: '/users/@me/sessions',
    auth: 'session',
    tag: 'users',
    summary: 'The sessions of the signed-in user that can still be used (device, address, created, last seen), newest first',
    responses: { 200: { description: 'sessions', schema: SessionOut.array() } },
    async handler(ctx, { user }) {
      return (await listSessions(ctx.deps.knex, user.id, SESSION_TTL_SECONDS)).map((s) => presentSession(s, ctx.state.sessionId));
    },
  }),
  route({
    method: 'delete',
    path: '/users/@me/sessions/:id',
    auth: 'session',
    tag: 'users',
    summary: 'Sign out one session (this one too: its cookie is then cleared)',
    params: SessionParams,
    resource: 'Session',
    responses: { 204: { description: 'signed out' }, 404: { description: 'no such live session of this user' } },
    async handler(ctx, { params, user }) {
      if (!(await revokeSession(ctx.deps.knex, user.id, params.id))) throw notFound('Session');
      if (params.id === ctx.state.sessionId) clearSession(ctx);
      ctx.deps.log.info({ userId: user.id, sessionId: params.id, requestId: ctx.state.requestId }, 'account: session signed out');
      ctx.status = 204;
    },
  }),
];
