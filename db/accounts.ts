import type { Knex } from 'knex';
import { hashPassword } from '../lib/password';
import { consumeToken, isLiveToken } from './tokens';
import type { UserRow } from './users';
import { clearAccountFailures } from './authThrottle';

/**
 * Marks the address proven, in the transaction that spent the token. Nothing else follows from it:
 * pending project invites in particular stay pending (db/members.ts acceptInvite), since the
 * account may have been made by someone else with this address and only verified by its owner.
 */
async function proveEmail(trx: Knex.Transaction, userId: string): Promise<UserRow> {
  const [user] = await trx<UserRow>('users')
    .where({ id: userId })
    .update({ email_verified: true, updated_at: trx.fn.now() as any })
    .returning('*');
  return user;
}

/** The verified user, or null when the token is unknown, used or expired. */
export async function verifyEmailWithToken(knex: Knex, token: string): Promise<UserRow | null> {
  return knex.transaction(async (trx) => {
    const userId = await consumeToken(trx, 'VERIFY_EMAIL', token);
    return userId ? proveEmail(trx, userId) : null;
  });
}

/**
 * Sets a new password, or returns null for a bad token. The reset link reached the inbox, so the
 * address counts as verified too; other outstanding reset links stop working, every earlier
 * session ends (the session version moves on), and the address's failed sign-ins are forgotten.
 * On an account that was never verified this is a claim: whoever signed up with the address
 * without owning it loses the session they kept.
 */
export async function resetPasswordWithToken(knex: Knex, token: string, password: string): Promise<UserRow | null> {
  // Hashing is slow and memory-hard: never spent on a bad token, and done before the transaction rather than while holding it.
  if (!(await isLiveToken(knex, 'RESET_PASSWORD', token))) return null;
  const passwordHash = await hashPassword(password);
  return knex.transaction(async (trx) => {
    const userId = await consumeToken(trx, 'RESET_PASSWORD', token);
    if (!userId) return null;
    const [{ email }] = await trx('users')
      .where({ id: userId })
      .update({ password_hash: passwordHash, session_version: trx.raw('session_version + 1') })
      .returning('email');
    await clearAccountFailures(trx, email);
    await trx('user_tokens').where({ user_id: userId, purpose: 'RESET_PASSWORD' }).whereNull('used_at').update({ expires_at: trx.fn.now() });
    return proveEmail(trx, userId);
  });
}
