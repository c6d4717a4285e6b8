import { sendSystemEmail } from './systemEmail';
import { issueToken, recentTokenCount, TokenPurpose, TOKEN_TTL_SECONDS } from '../db/tokens';
import type { UserRow } from '../db/users';

/** At most this many links of one kind per account and hour: nobody can flood an inbox through us. */
export const MAX_EMAILS_PER_HOUR = 5;

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
export async function mailToken(deps: Parameters<typeof sendSystemEmail>[0], user: UserRow, purpose: TokenPurpose): Promise<boolean> {
  const { knex } = deps;
  if ((await recentTokenCount(knex, user.id, purpose, 3600)) >= MAX_EMAILS_PER_HOUR) return false;
  const token = await issueToken(knex, user.id, purpose);
  const email = EMAILS[purpose];
  await sendSystemEmail(deps, {
    to: user.email,
    subject: email.subject,
    body: email.body,
    variables: { url: `${deps.config.appUrl}/${email.page}?token=${token}`, hours: TOKEN_TTL_SECONDS[purpose] / 3600 },
  });
  return true;
}
