import type { Knex } from 'knex';

/**
 * Named API keys with scopes (docs/api.md "Scoped API keys"), beside the project's sk_/pk_ pair.
 * Only the sha256 of the secret is kept, with its first characters (`prefix`) to recognise it by;
 * every request looks its key up here, so a deleted (revoked) row stops working on every replica at once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS api_keys (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      name text NOT NULL,
      scopes text[] NOT NULL,
      key_hash text NOT NULL UNIQUE,
      prefix text NOT NULL,
      created_by uuid REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_used_at timestamptz
    )`);
  await knex.raw('CREATE INDEX IF NOT EXISTS api_keys_project ON api_keys (project_id, created_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS api_keys');
}
