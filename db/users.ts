import type { Knex } from 'knex';
import { uuid } from '../lib/ids';
import { hashPassword, verifyPassword, DUMMY_HASH } from '../lib/password';
import { revokeSessions } from './sessions';

export interface UserRow {
  id: string;
  email: string;
  password_hash: string;
  email_verified: boolean;
  /** What the dashboard calls the person; null until they give one. */
  name: string | null;
  /** The dashboard's language ('en' | 'fr' | 'de'); null follows the browser. */
  locale: 'en' | 'fr' | 'de' | null;
  /** Carried in every session cookie; bumping it ends every earlier session (api/middleware/auth.ts). */
  session_version: number;
  created_at: Date;
  updated_at: Date;
}

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/** null when the email is taken. */
export async function createUser(knex: Knex, email: string, password: string): Promise<UserRow | null> {
  const rows = await knex<UserRow>('users')
    .insert({ id: uuid(), email: normalizeEmail(email), password_hash: await hashPassword(password) })
    .onConflict('email')
    .ignore()
    .returning('*');
  return rows[0] ?? null;
}

export async function findUserByEmail(knex: Knex, email: string): Promise<UserRow | undefined> {
  return knex<UserRow>('users')
    .where({ email: normalizeEmail(email) })
    .first();
}

export async function checkCredentials(knex: Knex, email: string, password: string): Promise<UserRow | null> {
  const user = await findUserByEmail(knex, email);
  const ok = await verifyPassword(password, user?.password_hash ?? DUMMY_HASH);
  return user && ok ? user : null;
}

export async function findUser(knex: Knex, id: string): Promise<UserRow | undefined> {
  return knex<UserRow>('users').where({ id }).first();
}

/**
 * Ends every session of the user issued before now; the new version signs the next cookie. The
 * session rows are marked too, so the sessions list shows none of them.
 */
export async function bumpSessionVersion(knex: Knex, id: string): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx('users').where({ id }).increment('session_version', 1);
    await revokeSessions(trx, id);
  });
}

/** Changes what is given of the person's own profile (name, dashboard language). */
export async function updateProfile(knex: Knex, id: string, change: { name?: string | null; locale?: UserRow['locale'] }): Promise<UserRow> {
  const [row] = await knex<UserRow>('users')
    .where({ id })
    .update({ ...change, updated_at: knex.fn.now() as any })
    .returning('*');
  return row;
}

/**
 * Sets a new password for a signed-in user who proved the current one (the caller checks it):
 * every other session ends (its row is revoked) and `keep`, the session that asked, stays.
 */
export async function changePassword(knex: Knex, userId: string, next: string, keep: string): Promise<UserRow> {
  const passwordHash = await hashPassword(next);
  return knex.transaction(async (trx) => {
    const [row] = await trx<UserRow>('users')
      .where({ id: userId })
      .update({ password_hash: passwordHash, updated_at: trx.fn.now() as any })
      .returning('*');
    await revokeSessions(trx, userId, keep);
    return row;
  });
}
