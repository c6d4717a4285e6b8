import type { Knex } from 'knex';

/**
 * Two-factor authentication (docs/security.md "Two-factor authentication"):
 * - user_two_factor: one row per user who began enrolling. `secret` is the TOTP secret sealed with
 *   ENCRYPTION_KEY (lib/secretBox.ts); `enabled_at` is null until the first code confirmed it;
 *   `last_step` is the TOTP time step of the last code accepted, so no code is accepted twice.
 * - user_recovery_codes: the one-time recovery codes, stored as sha256 (they are random, 80 bits),
 *   `used_at` set by the one statement that accepts a code.
 * - projects.require_two_factor: an owner's rule that members need 2FA to open the project.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS user_two_factor (
      user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
      secret text NOT NULL,
      enabled_at timestamptz,
      last_step bigint,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS user_recovery_codes (
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      code_hash text NOT NULL,
      used_at timestamptz,
      PRIMARY KEY (user_id, code_hash)
    )`);
  await knex.raw('ALTER TABLE projects ADD COLUMN IF NOT EXISTS require_two_factor boolean NOT NULL DEFAULT false');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE projects DROP COLUMN IF EXISTS require_two_factor');
  await knex.raw('DROP TABLE IF EXISTS user_recovery_codes');
  await knex.raw('DROP TABLE IF EXISTS user_two_factor');
}
