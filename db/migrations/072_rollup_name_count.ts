import type { Knex } from 'knex';

/**
 * Event count filters ("did `purchase` at least 3 times", db/filters) read the per-contact rollup
 * (migration 059) by project, name and count; without this index the 1M/5M bench found them
 * scanning the whole `contact_event_rollups` (docs/benchmarks.md). `contact_id` is included so the
 * filter's join to contacts reads the index alone (an index-only scan once vacuum has marked the
 * pages visible), not one rollup heap page per matching contact. Built CONCURRENTLY (outside a
 * transaction): the rollup holds a row per contact and event name of every project. A build that
 * died half-way leaves an invalid index that IF NOT EXISTS would keep: it is dropped first.
 */
export const config = { transaction: false };

const NAME = 'contact_event_rollups_name_count';

export async function up(knex: Knex): Promise<void> {
  const { rows } = await knex.raw('SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = ? AND NOT i.indisvalid', [NAME]);
  if (rows.length) await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${NAME}`);
  await knex.raw(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${NAME} ON contact_event_rollups (project_id, name, count) INCLUDE (contact_id)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${NAME}`);
}
