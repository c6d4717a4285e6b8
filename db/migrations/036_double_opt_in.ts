import type { Knex } from 'knex';

/**
 * Double opt-in (docs/api.md "Double opt-in"): the project's settings (null: off, and a request may
 * not ask for it), and one pending confirmation per contact: the contact stays unsubscribed until the
 * person presses the button behind the emailed link, before `expires_at`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE projects ADD COLUMN IF NOT EXISTS double_opt_in jsonb');
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS contact_confirmations (
      contact_id text PRIMARY KEY REFERENCES contacts(id) ON DELETE CASCADE,
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      email_id uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL
    )`);
  await knex.raw('CREATE INDEX IF NOT EXISTS contact_confirmations_expiry ON contact_confirmations (expires_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS contact_confirmations');
  await knex.raw('ALTER TABLE projects DROP COLUMN IF EXISTS double_opt_in');
}
