import { route } from '../route';
import { ApiError } from '../errors';
import {
  Accepted,
  PasswordResetDone,
  OAuthConfig,
  PasswordReset,
  PasswordResetRequest,
  TokenBody,
  VerificationRequested,
  VerifiedUser,
} from '../schemas/account';
import { mailToken, MAX_EMAILS_PER_HOUR } from '../../services/accountEmails';
import { resetPasswordWithToken, verifyEmailWithToken } from '../../db/accounts';
import { findUserByEmail } from '../../db/users';
import { oauthProviders } from '../../lib/oauth';
import { throttleClient } from '../middleware/authThrottle';
import { signIn } from '../signIn';

const invalidToken = () =>
  new ApiError(400, 'INVALID_TOKEN', 'This link is invalid, was already used or has expired', { suggestion: 'Ask for a new email and use the newest link' });

export default [
  route({
    method: 'post',
    path: '/auth/request-verification',
    auth: 'session',
    tag: 'auth',
    summary: 'Email the signed-in user a link that verifies their address (valid 24 hours, once)',
    responses: { 200: { description: 'sent, or nothing to do', schema: VerificationRequested }, 429: { description: 'too many emails this hour' } },
    async handler(ctx, { user }) {
      if (user.email_verified) {
        return { success: true, alreadyVerified: true, message: 'This email address is already verified' };
      }
      if (!(await mailToken(ctx.deps, user, 'VERIFY_EMAIL'))) {
        throw new ApiError(429, 'RATE_LIMIT_EXCEEDED', `At most ${MAX_EMAILS_PER_HOUR} verification emails per hour`, { headers: { 'Retry-After': '3600' } });
      }
      return { success: true, alreadyVerified: false, message: `Verification email sent to ${user.email}` };
    },
  }),
  route({
    method: 'post',
    path: '/auth/verify-email',
    auth: 'none',
    tag: 'auth',
    summary: 'Verify an email address with the token from the emailed link (project invites stay pending: they are accepted with their own link)',
    body: TokenBody,
    responses: { 200: { description: 'verified', schema: VerifiedUser }, 400: { description: 'INVALID_TOKEN: unknown, used or expired' } },
    async handler(ctx, { body }) {
      const user = await verifyEmailWithToken(ctx.deps.knex, body.token);
      if (!user) throw invalidToken();
      return { id: user.id, email: user.email, emailVerified: true };
    },
  }),
  route({
    method: 'post',
    path: '/auth/request-password-reset',
    auth: 'none',
    tag: 'auth',
    summary: 'Email a password reset link (valid 1 hour, once); the answer is the same whether the account exists or not',
    body: PasswordResetRequest,
    responses: { 200: { description: 'accepted', schema: Accepted }, 429: { description: 'RATE_LIMIT_EXCEEDED: too many attempts from this address' } },
    async handler(ctx, { body }) {
      await throttleClient(ctx);
      const { knex, log } = ctx.deps;
      // Not awaited: the answer must take as long for an unknown address as for a known one.
      void (async () => {
        const user = await findUserByEmail(knex, body.email);
        if (user) await mailToken(ctx.deps, user, 'RESET_PASSWORD');
      })().catch((err) => log.error({ err, requestId: ctx.state.requestId }, 'password reset email failed'));
      return { success: true, message: 'If an account exists for this address, a reset link is on its way' };
    },
  }),
  route({
    method: 'post',
    path: '/auth/reset-password',
    auth: 'none',
    tag: 'auth',
    summary: 'Set a new password with the token from the emailed link, and sign in: this browser gets a new session, every other one ends',
    // It sets the session cookie: another site's page must not sign a visitor in to an account of its choosing.
    crossSiteForms: true,
    body: PasswordReset,
    responses: {
      200: {
        description:
          'password changed and signed in (cookie set), or — an account with 2FA — the two-factor ticket set instead (twoFactorRequired); every earlier session of the account ended',
        schema: PasswordResetDone,
      },
      403: { description: 'a request from another origin' },
      400: { description: 'INVALID_TOKEN: unknown, used or expired' },
      429: { description: 'RATE_LIMIT_EXCEEDED: too many attempts from this address' },
    },
    async handler(ctx, { body }) {
      await throttleClient(ctx);
      const user = await resetPasswordWithToken(ctx.deps.knex, body.token, body.password);
      if (!user) throw invalidToken();
      ctx.deps.log.info({ userId: user.id, requestId: ctx.state.requestId }, 'account: password reset; every earlier session ended');
      // A reset link proves the mailbox, not the second factor: an account with 2FA still enters its code.
      if ((await signIn(ctx, user)) === 'second-factor') {
        return { success: true as const, message: 'Password changed; enter your authentication code to sign in', twoFactorRequired: true };
      }
      return { success: true as const, message: 'Password changed; you are signed in', twoFactorRequired: false };
    },
  }),
  route({
    method: 'get',
    path: '/auth/oauth-config',
    auth: 'none',
    tag: 'auth',
    summary: 'The OAuth providers configured on this server',
    responses: { 200: { description: 'providers', schema: OAuthConfig } },
    handler(ctx) {
      return { providers: oauthProviders(ctx.deps.config.oauthProviders) };
    },
  }),
];
