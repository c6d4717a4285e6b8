import type { Knex } from 'knex';

/**
 * Per-project suppression list (docs/api.md "Suppressions"): addresses never handed to a provider
 * again, checked at every hand-over (db/suppressions suppressedSql). One row per normalized
 * (lowercase) address and project.
 * The hand-over checks look the list up by its primary key, so `emails` needs no new index and
 * the migration runs in a transaction like the others.
 */

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS suppressions (
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      email text NOT NULL CHECK (email = lower(email)),
      reason text NOT NULL CHECK (reason IN ('HARD_BOUNCE', 'COMPLAINT', 'MANUAL')),
      email_id uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz,
      PRIMARY KEY (project_id, email)
    )`);
  // The listing filters by reason within a project.
  await knex.raw('CREATE INDEX IF NOT EXISTS suppressions_project_reason ON suppressions (project_id, reason, email)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS suppressions');
}
