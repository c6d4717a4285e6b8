import { z } from 'zod';
import { route } from '../route';
import { ApiError } from '../errors';
import { UserOut } from '../schemas/auth';
import { EnableBody, EnrolmentOut, RecoveryCodesOut, SecondFactorBody, TwoFactorStatusOut } from '../schemas/twoFactor';
import { startSession } from '../sessionCookie';
import { clearTicket, ticketUser } from '../twoFactorTicket';
import { reserveSecondFactor, secondFactorSucceeded, throttleClient } from '../middleware/authThrottle';
import { beginEnrolment, confirmEnrolment, disable, regenerateRecoveryCodes, SecondFactor, spendSecondFactor } from '../../services/twoFactor';
import { findTwoFactor, recoveryCodesLeft } from '../../db/twoFactor';
import { iso } from '../../lib/time';

const factorOf = (body: z.infer<typeof SecondFactorBody>): SecondFactor =>
  body.recoveryCode !== undefined ? { recoveryCode: body.recoveryCode } : { code: body.code ?? '' };

const tooMany = { description: 'RATE_LIMIT_EXCEEDED: too many wrong codes for this account, or attempts from this address; Retry-After says for how long' };
const wrongFactor = { description: 'VALIDATION_ERROR on `code` or `recoveryCode`: wrong, already used, or outside the accepted time steps' };

export default [
  route({
    method: 'post',
    path: '/auth/login/two-factor',
    auth: 'none',
    tag: 'auth',
    summary:
      'Second step of signing in to an account with 2FA: a code from the authenticator app, or a recovery code, with the ticket cookie POST /auth/login set; sets the session cookie',
    body: SecondFactorBody,
    responses: {
      200: { description: 'signed in', schema: UserOut },
      401: { description: 'no valid ticket (sign in with the password first; it lasts 5 minutes), or a wrong, used or expired code' },
      429: tooMany,
    },
    async handler(ctx, { body }) {
      await throttleClient(ctx);
      const user = await ticketUser(ctx);
      if (!user) throw new ApiError(401, 'UNAUTHORIZED', 'No sign-in is waiting for a second factor: sign in with your email and password first');
      await reserveSecondFactor(ctx, user.id);
      if (!(await spendSecondFactor(ctx.deps, user.id, factorOf(body)))) {
        throw new ApiError(
          401,
          'UNAUTHORIZED',
          body.recoveryCode !== undefined ? 'Wrong or already used recovery code' : 'Wrong or already used authentication code',
        );
      }
      await secondFactorSucceeded(ctx, user.id);
      clearTicket(ctx);
      await startSession(ctx, user);
      return { id: user.id, email: user.email };
    },
  }),
  route({
    method: 'get',
    path: '/users/@me/two-factor',
    auth: 'session',
    tag: 'users',
    summary: 'Whether the signed-in user has two-factor authentication, and how many recovery codes are left',
    responses: { 200: { description: 'status', schema: TwoFactorStatusOut } },
    async handler(ctx, { user }) {
      const row = await findTwoFactor(ctx.deps.knex, user.id);
      const enabled = !!row?.enabled_at;
      return { enabled, enabledAt: enabled ? iso(row!.enabled_at) : null, recoveryCodesLeft: enabled ? await recoveryCodesLeft(ctx.deps.knex, user.id) : 0 };
    },
  }),
  route({
    method: 'post',
    path: '/users/@me/two-factor/setup',
    auth: 'session',
    tag: 'users',
    summary: 'Begin enrolling an authenticator app: a new secret and its QR code (2FA stays off until POST …/enable accepts a first code)',
    responses: { 200: { description: 'the secret, shown here only', schema: EnrolmentOut }, 409: { description: '2FA is already enabled' } },
    async handler(ctx, { user }) {
      return await beginEnrolment(ctx.deps, user);
    },
  }),
  route({
    method: 'post',
    path: '/users/@me/two-factor/enable',
    auth: 'session',
    tag: 'users',
    summary: 'Finish enrolling with the first code from the app; answers the 10 recovery codes, shown this once',
    body: EnableBody,
    responses: {
      200: { description: '2FA is on', schema: RecoveryCodesOut },
      409: { description: 'no enrolment begun, or 2FA already enabled' },
      422: wrongFactor,
    },
    async handler(ctx, { body, user }) {
      return { recoveryCodes: await confirmEnrolment(ctx.deps, user.id, body.code) };
    },
  }),
  route({
    method: 'post',
    path: '/users/@me/two-factor/disable',
    auth: 'session',
    tag: 'users',
    summary: 'Turn 2FA off: needs a current code from the app, or a recovery code',
    body: SecondFactorBody,
    responses: { 204: { description: '2FA is off; the secret and the recovery codes are deleted' }, 422: wrongFactor, 429: tooMany },
    async handler(ctx, { body, user }) {
      await reserveSecondFactor(ctx, user.id);
      await disable(ctx.deps, user.id, factorOf(body));
      await secondFactorSucceeded(ctx, user.id);
      ctx.status = 204;
    },
  }),
  route({
    method: 'post',
    path: '/users/@me/two-factor/recovery-codes',
    auth: 'session',
    tag: 'users',
    summary: 'Replace the recovery codes (a current code, or a recovery code, proves the holder); the old ones stop working',
    body: SecondFactorBody,
    responses: { 200: { description: 'the new codes, shown this once', schema: RecoveryCodesOut }, 422: wrongFactor, 429: tooMany },
    async handler(ctx, { body, user }) {
      await reserveSecondFactor(ctx, user.id);
      const recoveryCodes = await regenerateRecoveryCodes(ctx.deps, user.id, factorOf(body));
      await secondFactorSucceeded(ctx, user.id);
      return { recoveryCodes };
    },
  }),
];
