import { route } from '../route';
import type { AppContext } from '../context';
import { ApiError } from '../errors';
import { Accepted, OAuthConfig, PasswordReset, PasswordResetRequest, TokenBody, VerificationRequested, VerifiedUser } from '../schemas/account';
import { sendSystemEmail } from '../operations/systemEmail';
import { issueToken, recentTokenCount, TokenPurpose, TOKEN_TTL_SECONDS } from '../../db/tokens';
import { resetPasswordWithToken, verifyEmailWithToken } from '../../db/accounts';
import { findUserByEmail, UserRow } from '../../db/users';
import { oauthProviders } from '../../lib/oauth';

/** At most this many links of one kind per account and hour: nobody can flood an inbox through us. */
const MAX_EMAILS_PER_HOUR = 5;

const invalidToken = () =>
  new ApiError(400, 'INVALID_TOKEN', 'This link is invalid, was already used or has expired', { suggestion: 'Ask for a new email and use the newest link' });

const EMAILS: Record<TokenPurpose, { subject: string; page: string; body: string }> = {
  VERIFY_EMAIL: {
    subject: 'Verify your email address',
    page: 'verify-email',
    body: `<p>Confirm your email address by opening this link:</p><p><a href="{{ url }}">{{ url }}</a></p><p>It works once and expires in {{ hours }} hours. If you did not sign up, ignore this email.</p>`,
  },
  RESET_PASSWORD: {
    subject: 'Reset your password',
    page: 'reset-password',
    body: `<p>Someone asked to reset the password of this account. To choose a new one, open this link:</p><p><a href="{{ url }}">{{ url }}</a></p><p>It works once and expires in {{ hours }} hour(s). If it was not you, ignore this email: your password stays as it is.</p>`,
  },
};

/** Issues a token and mails its link; false when the account already got its hourly share. */
async function mailToken(ctx: AppContext, user: UserRow, purpose: TokenPurpose): Promise<boolean> {
  const { knex } = ctx.deps;
  if ((await recentTokenCount(knex, user.id, purpose, 3600)) >= MAX_EMAILS_PER_HOUR) return false;
  const token = await issueToken(knex, user.id, purpose);
  const email = EMAILS[purpose];
  await sendSystemEmail(ctx.deps, {
    to: user.email,
    subject: email.subject,
    body: email.body,
    variables: { url: `${ctx.deps.config.appUrl}/${email.page}?token=${token}`, hours: TOKEN_TTL_SECONDS[purpose] / 3600 },
  });
  return true;
}

export default [
  route({
    method: 'post',
    path: '/auth/request-verification',
    auth: 'session',
    tag: 'auth',
    summary: 'Email the signed-in user a link that verifies their address (valid 24 hours, once)',
    responses: { 200: { description: 'sent, or nothing to do', schema: VerificationRequested }, 429: { description: 'too many emails this hour' } },
    async handler(ctx) {
      const user = ctx.state.user!;
      if (user.email_verified) {
        ctx.body = { success: true, alreadyVerified: true, message: 'This email address is already verified' };
        return;
      }
      if (!(await mailToken(ctx, user, 'VERIFY_EMAIL'))) {
        throw new ApiError(429, 'RATE_LIMIT_EXCEEDED', `At most ${MAX_EMAILS_PER_HOUR} verification emails per hour`, { headers: { 'Retry-After': '3600' } });
      }
      ctx.body = { success: true, alreadyVerified: false, message: `Verification email sent to ${user.email}` };
    },
  }),
  route({
    method: 'post',
    path: '/auth/verify-email',
    auth: 'none',
    tag: 'auth',
    summary: 'Verify an email address with the token from the emailed link; pending project invites for it are accepted',
    body: TokenBody,
    responses: { 200: { description: 'verified', schema: VerifiedUser }, 400: { description: 'INVALID_TOKEN: unknown, used or expired' } },
    async handler(ctx, { body }) {
      const user = await verifyEmailWithToken(ctx.deps.knex, body.token);
      if (!user) throw invalidToken();
      ctx.body = { id: user.id, email: user.email, emailVerified: true };
    },
  }),
  route({
    method: 'post',
    path: '/auth/request-password-reset',
    auth: 'none',
    tag: 'auth',
    summary: 'Email a password reset link (valid 1 hour, once); the answer is the same whether the account exists or not',
    body: PasswordResetRequest,
    responses: { 200: { description: 'accepted', schema: Accepted } },
    async handler(ctx, { body }) {
      const { knex, log } = ctx.deps;
      // Not awaited: the answer must take as long for an unknown address as for a known one.
      void (async () => {
        const user = await findUserByEmail(knex, body.email);
        if (user) await mailToken(ctx, user, 'RESET_PASSWORD');
      })().catch((err) => log.error({ err, requestId: ctx.state.requestId }, 'password reset email failed'));
      ctx.body = { success: true, message: 'If an account exists for this address, a reset link is on its way' };
    },
  }),
  route({
    method: 'post',
    path: '/auth/reset-password',
    auth: 'none',
    tag: 'auth',
    summary: 'Set a new password with the token from the emailed link',
    body: PasswordReset,
    responses: { 200: { description: 'password changed', schema: Accepted }, 400: { description: 'INVALID_TOKEN: unknown, used or expired' } },
    async handler(ctx, { body }) {
      const user = await resetPasswordWithToken(ctx.deps.knex, body.token, body.password);
      if (!user) throw invalidToken();
      ctx.body = { success: true, message: 'Password changed; sign in with the new one' };
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
      ctx.body = { providers: oauthProviders(ctx.deps.config.oauthProviders) };
    },
  }),
];
