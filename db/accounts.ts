import type { Knex } from 'knex';
import { hashPassword } from '../lib/password';
import { consumeToken, isLiveToken, spendToken } from './tokens';
import { normalizeEmail, type UserRow } from './users';
import { clearAccountFailures } from './authThrottle';
import { revokeSessions } from './sessions';

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
    await revokeSessions(trx, userId);
    await trx('user_tokens').where({ user_id: userId, purpose: 'RESET_PASSWORD' }).whereNull('used_at').update({ expires_at: trx.fn.now() });
    return proveEmail(trx, userId);
  });
}

/** Whether an account other than `userId` has this address already. */
export async function emailTaken(knex: Knex, email: string, userId?: string): Promise<boolean> {
  const q = knex('users').where({ email: normalizeEmail(email) });
  if (userId) q.whereNot({ id: userId });
  return !!(await q.first('id'));
}

export type EmailChange = { user: UserRow; oldEmail: string } | 'INVALID' | 'TAKEN';

/**
 * Applies an email change with the token mailed to the new address: the address is then the
 * account's and verified (the link reached it). Every other link mailed to the old address (reset,
 * verification, other changes) stops working. 'TAKEN' when another account took the address
 * meanwhile; the token is then left unspent.
 */
export async function confirmEmailChange(knex: Knex, token: string): Promise<EmailChange> {
  try {
    return await knex.transaction(async (trx) => {
      const spent = await spendToken(trx, 'CHANGE_EMAIL', token);
      if (!spent?.newEmail) return 'INVALID';
      if (await emailTaken(trx, spent.newEmail, spent.userId)) throw new Taken();
      const { email: oldEmail } = await trx('users').where({ id: spent.userId }).forUpdate().first('email');
      const [user] = await trx<UserRow>('users')
        .where({ id: spent.userId })
        .update({ email: spent.newEmail, email_verified: true, updated_at: trx.fn.now() as any })
        .returning('*');
      await trx('user_tokens').where({ user_id: spent.userId }).whereNull('used_at').update({ expires_at: trx.fn.now() });
      return { user, oldEmail };
    });
  } catch (err) {
    // The unique index decides a race between two accounts claiming one address.
    if (err instanceof Taken || (err as { code?: string }).code === '23505') return 'TAKEN';
    throw err;
  }
}

class Taken extends Error {}
