import type { Knex } from 'knex';

/**
 * Erasure (docs/privacy.md "Erasure"): one row per erased contact, holding no personal data — the
 * contact's former id and the executions whose Temporal workflows still had to be cancelled when the
 * erasing transaction committed. `cancelled_at` is set once they all were; a repeated erasure of the
 * same id (or the maintenance sweep) finishes what a crash between the commit and the cancels left.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS contact_erasures (
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      contact_id text NOT NULL,
      executions uuid[] NOT NULL DEFAULT '{}',
      erased_at timestamptz NOT NULL DEFAULT now(),
      cancelled_at timestamptz,
      PRIMARY KEY (project_id, contact_id)
    )`);
  await knex.raw('CREATE INDEX IF NOT EXISTS contact_erasures_pending ON contact_erasures (erased_at) WHERE cancelled_at IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS contact_erasures');
}
