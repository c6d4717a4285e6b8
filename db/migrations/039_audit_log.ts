import type { Knex } from 'knex';

/**
 * The audit log (docs/privacy.md "Audit log"): who did what in a project. `actor` is a user id, the
 * words `secret key` or `system`; `target` names the changed thing by type and id only — never an
 * address, so the log itself holds no contact's personal data and outlives erasures. The log
 * survives a project reset (db/projects.ts KEPT_ON_RESET) and goes with the project.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS audit_log (
      id bigserial PRIMARY KEY,
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      at timestamptz NOT NULL DEFAULT now(),
      actor text NOT NULL,
      action text NOT NULL,
      target_type text NOT NULL,
      target_id text,
      details jsonb,
      ip text
    )`);
  // Newest first per project, and the same with an action filter.
  await knex.raw('CREATE INDEX IF NOT EXISTS audit_log_project_at ON audit_log (project_id, at DESC, id DESC)');
  await knex.raw('CREATE INDEX IF NOT EXISTS audit_log_project_action ON audit_log (project_id, action, at DESC)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS audit_log');
}
