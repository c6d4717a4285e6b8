import { sendSystemEmail } from './systemEmail';
import { issueToken, recentTokenCount, TokenPurpose, TOKEN_TTL_SECONDS } from '../db/tokens';
import type { UserRow } from '../db/users';

/** At most this many links of one kind per account and hour: nobody can flood an inbox through us. */
export const MAX_EMAILS_PER_HOUR = 5;

type Deps = Parameters<typeof sendSystemEmail>[0];

// Links open the dashboard's screens (web/src/pages/account/), which post the token to the API.
const EMAILS: Record<TokenPurpose, { subject: string; page: string; body: string }> = {
  VERIFY_EMAIL: {
    subject: 'Verify your email address',
    page: 'app/verify-email',
    body: `<p>Confirm your email address by opening this link:</p><p><a href="{{ url }}">{{ url }}</a></p><p>It works once and expires in {{ hours }} hours. If you did not sign up, ignore this email.</p>`,
  },
  RESET_PASSWORD: {
    subject: 'Reset your password',
    page: 'app/reset-password',
    body: `<p>Someone asked to reset the password of this account. To choose a new one, open this link:</p><p><a href="{{ url }}">{{ url }}</a></p><p>It works once and expires in {{ hours }} hour(s). If it was not you, ignore this email: your password stays as it is.</p>`,
  },
  CHANGE_EMAIL: {
    subject: 'Confirm your new email address',
    page: 'app/confirm-email',
    body: `<p>Someone asked to use this address for their account. To confirm the change, open this link:</p><p><a href="{{ url }}">{{ url }}</a></p><p>It works once and expires in {{ hours }} hours. Until it is opened, the account keeps its current address. If it was not you, ignore this email.</p>`,
  },
};

/**
 * Issues a token and mails its link; false when the account already got its hourly share. An email
 * change's link goes to the new address (`newEmail`), every other link to the account's own.
 */
export async function mailToken(deps: Deps, user: UserRow, purpose: TokenPurpose, newEmail?: string): Promise<boolean> {
  const { knex } = deps;
  if ((await recentTokenCount(knex, user.id, purpose, 3600)) >= MAX_EMAILS_PER_HOUR) return false;
  const token = await issueToken(knex, user.id, purpose, newEmail);
  const email = EMAILS[purpose];
  await sendSystemEmail(deps, {
    to: newEmail ?? user.email,
    subject: email.subject,
    body: email.body,
    variables: { url: `${deps.config.appUrl}/${email.page}?token=${token}`, hours: TOKEN_TTL_SECONDS[purpose] / 3600 },
  });
  return true;
}

/** Tells the address an account just left that it did: the owner learns of a change they did not make. */
export async function mailEmailChanged(deps: Deps, oldEmail: string, newEmail: string): Promise<void> {
  await sendSystemEmail(deps, {
    to: oldEmail,
    subject: 'Your email address was changed',
    body: `<p>The account that used {{ old }} now uses {{ new }}; this address no longer signs in to it.</p><p>If you did not make this change, contact the administrator of {{ site }} at once.</p>`,
    variables: { old: oldEmail, new: newEmail, site: deps.config.appUrl },
  });
}
