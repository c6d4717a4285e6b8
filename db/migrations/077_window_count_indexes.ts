import type { Knex } from 'knex';

/**
 * Windowed event filters read indexes alone (docs/capacity.md "Ten million contacts"; issue 44):
 *
 * - `events (project_id, name, created_at) INCLUDE (contact_id)` replaces the same index without the
 *   INCLUDE (migration 001). "At least 3 `purchase` in the last 30 days" counts the window's events
 *   of that name per contact (db/filters/sql.ts): one range of this index, read without touching the
 *   events' heap (an index-only scan once vacuum has marked the pages visible). Without the contact
 *   in the index every event of the window was a heap fetch, and before that the filter probed the
 *   log once per candidate contact (27 s at 10M contacts / 50M events). Same entries as the index it
 *   replaces, a few bytes wider: an event write keeps its index count.
 * - `contact_event_rollups (project_id, name, last_at) INCLUDE (contact_id, count)` replaces
 *   `contact_event_rollups_name_last` (migration 059) under the same name: `within`, `notWithin` and
 *   the candidates of `atLeastWithin` take the contacts of a name whose last event is recent from
 *   the index alone (a bitmap heap scan of the rollup rows before). A rollup row's `last_at` changes
 *   with every event, so its updates already wrote this index; the entries only grow.
 *
 * Built CONCURRENTLY (outside a transaction), as 072: events is partitioned, and a partitioned
 * index cannot be built concurrently, so the parent's is created `ON ONLY` (invalid, empty) first
 * — a partition created from then on gets its own with it — then each partition's is built
 * concurrently and attached, which makes the parent's valid. A run that died half-way is resumed:
 * invalid concurrent builds are dropped and built again, attached ones are skipped. Each old index
 * goes only once its replacement is valid; dropping the events one takes a short exclusive lock.
 */
export const config = { transaction: false };

const EVENTS_NEW = 'events_project_name_created_contact';
const EVENTS_OLD = 'events_project_id_name_created_at_index';
const ROLLUPS = 'contact_event_rollups_name_last';
const ROLLUPS_BUILDING = 'contact_event_rollups_name_last_contact';

async function dropIfInvalid(knex: Knex, name: string) {
  const { rows } = await knex.raw('SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = ? AND NOT i.indisvalid', [name]);
  if (rows.length) await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${quote(name)}`);
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

async function indexExists(knex: Knex, name: string): Promise<boolean> {
  const { rows } = await knex.raw("SELECT 1 FROM pg_class WHERE relname = ? AND relkind IN ('i', 'I')", [name]);
  return rows.length > 0;
}

async function eventsIndex(knex: Knex) {
  await knex.raw(`CREATE INDEX IF NOT EXISTS ${EVENTS_NEW} ON ONLY events (project_id, name, created_at) INCLUDE (contact_id)`);
  const { rows: partitions } = await knex.raw(
    `SELECT c.relname AS partition,
            (SELECT ic.relname FROM pg_inherits ii JOIN pg_class ic ON ic.oid = ii.inhrelid
              WHERE ii.inhparent = ?::regclass
                AND ic.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = c.oid)) AS attached
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'events'::regclass
      ORDER BY c.relname`,
    [EVENTS_NEW],
  );
  for (const { partition, attached } of partitions as { partition: string; attached: string | null }[]) {
    if (attached) continue;
    // Partition names are short (events_yYYYYmMM, events_default, events_unpartitioned): the index name stays under 63 bytes.
    const name = `${partition}_project_name_created_contact`;
    await dropIfInvalid(knex, name);
    await knex.raw(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${quote(name)} ON ${quote(partition)} (project_id, name, created_at) INCLUDE (contact_id)`);
    await knex.raw(`ALTER INDEX ${EVENTS_NEW} ATTACH PARTITION ${quote(name)}`);
  }
  const { rows: valid } = await knex.raw('SELECT i.indisvalid AS ok FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = ?', [EVENTS_NEW]);
  if (!valid[0]?.ok) throw new Error(`${EVENTS_NEW} is not valid after attaching every partition's index`);
  // The old index's readers (analytics' partial hours, the events listings by name) read the new one.
  await knex.transaction(async (trx) => {
    await trx.raw("SET LOCAL lock_timeout = '10s'");
    await trx.raw(`DROP INDEX IF EXISTS ${EVENTS_OLD}`);
  });
}

async function rollupsIndex(knex: Knex) {
  const { rows } = await knex.raw("SELECT pg_get_indexdef(c.oid) AS def FROM pg_class c WHERE c.relname = ? AND c.relkind = 'i'", [ROLLUPS]);
  if (String(rows[0]?.def ?? '').includes('INCLUDE')) return;
  await dropIfInvalid(knex, ROLLUPS_BUILDING);
  await knex.raw(
    `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${ROLLUPS_BUILDING} ON contact_event_rollups (project_id, name, last_at) INCLUDE (contact_id, count)`,
  );
  await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${ROLLUPS}`);
  await knex.raw(`ALTER INDEX ${ROLLUPS_BUILDING} RENAME TO ${ROLLUPS}`);
}

export async function up(knex: Knex): Promise<void> {
  await eventsIndex(knex);
  await rollupsIndex(knex);
}

export async function down(knex: Knex): Promise<void> {
  if (!(await indexExists(knex, EVENTS_OLD))) await knex.raw(`CREATE INDEX ${EVENTS_OLD} ON events (project_id, name, created_at)`);
  await knex.raw(`DROP INDEX IF EXISTS ${EVENTS_NEW}`);
  await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${ROLLUPS}`);
  await knex.raw(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${ROLLUPS} ON contact_event_rollups (project_id, name, last_at)`);
}
