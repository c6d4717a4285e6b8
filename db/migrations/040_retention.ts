import type { Knex } from 'knex';

/**
 * Retention (docs/privacy.md "Retention"): per project, how many days email bodies, events and
 * inbound messages are kept (null: kept). An email whose content the sweep removed keeps its row
 * (status, timestamps, counters) and says when its content went (`content_pruned_at`); the partial
 * index lets the sweep find the next unpruned emails without walking the pruned ones again.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE projects ADD COLUMN IF NOT EXISTS retention jsonb');
  await knex.raw('ALTER TABLE emails ADD COLUMN IF NOT EXISTS content_pruned_at timestamptz');
  await knex.raw('CREATE INDEX IF NOT EXISTS emails_content_unpruned ON emails (project_id, created_at) WHERE content_pruned_at IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS emails_content_unpruned');
  await knex.raw('ALTER TABLE emails DROP COLUMN IF EXISTS content_pruned_at');
  await knex.raw('ALTER TABLE projects DROP COLUMN IF EXISTS retention');
}
