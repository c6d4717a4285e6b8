import type { Knex } from 'knex';
import { uuid } from '../lib/ids';
import { hashPassword, verifyPassword, DUMMY_HASH } from '../lib/password';

export interface UserRow {
  id: string;
  email: string;
  password_hash: string;
  email_verified: boolean;
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

/** Ends every session of the user issued before now; the new version signs the next cookie. */
export async function bumpSessionVersion(knex: Knex, id: string): Promise<void> {
  await knex('users').where({ id }).increment('session_version', 1);
}
