import type { Knex } from 'knex';
import { backfillEventRollups } from '../eventRollups';

/**
 * Event rollups (docs/capacity.md "Ten million contacts"): per contact and event name its count and
 * first/last time, and per project, name and UTC hour a count, so event filters and analytics read a
 * few rows instead of the log.
 *
 * They are kept by statement-level AFTER triggers on `events` with transition tables, not by each
 * writer: six places insert events (track, contact writers, email states, suppressions, segment
 * entries, benches), and a trigger counts exactly what the statement wrote (an `ON CONFLICT (id) DO
 * NOTHING` replay adds nothing to `new_events`). Statement-level triggers with transition tables are
 * allowed on a partitioned parent (not on its partitions), so this survives events becoming
 * partitioned. Upserts (`ON CONFLICT DO UPDATE`) make concurrent writers exact: the second waits on
 * the row lock and adds to the first's committed figure. Rows are upserted in key order so two
 * multi-contact statements never lock in opposite orders.
 *
 * The hourly counts are split over 8 slots (by backend pid): every tracked event of a busy name
 * lands in the same hour, and one row would make concurrent transactions queue on its lock.
 *
 * An UPDATE that changes what they count by (project, contact, name, created_at) moves the counts
 * too; routing's updates (routed_at) change nothing there.
 *
 * Not in a transaction: the backfill locks in small batches (db/eventRollups.ts) instead of
 * holding events for the whole table.
 */
export const config = { transaction: false };

/** PL/pgSQL statements adding the events of relation `source` (aliased `x`) to both rollups. */
const add = (source: string) => `
  INSERT INTO contact_event_rollups AS r (contact_id, name, project_id, count, first_at, last_at)
  SELECT x.contact_id, x.name, x.project_id, count(*), min(x.created_at), max(x.created_at)
    FROM ${source} x WHERE x.contact_id IS NOT NULL
   GROUP BY x.contact_id, x.name, x.project_id
   ORDER BY x.contact_id, x.name
  ON CONFLICT (contact_id, name) DO UPDATE
    SET count = r.count + EXCLUDED.count, first_at = least(r.first_at, EXCLUDED.first_at), last_at = greatest(r.last_at, EXCLUDED.last_at);
  ${hourly(source, '')}`;

const hourly = (source: string, sign: '' | '-') => `
  INSERT INTO event_hourly_counts AS h (project_id, name, hour, slot, count)
  SELECT x.project_id, x.name, date_trunc('hour', x.created_at, 'UTC'), pg_backend_pid() % 8, ${sign}count(*)
    FROM ${source} x
   GROUP BY 1, 2, 3
   ORDER BY 1, 2, 3
  ON CONFLICT (project_id, name, hour, slot) DO UPDATE SET count = h.count + EXCLUDED.count;`;

/**
 * PL/pgSQL statements taking the events of `source` (already gone from the log) out of both rollups.
 * first_at/last_at are looked up again in the log only when a removed event was the first or the
 * last (retention removes the oldest: first_at only). A key whose every event went loses its row, so
 * "has a row" means "triggered". The hourly count goes down in this backend's slot (a slot may go
 * negative: the slots' sum is what is read).
 */
export const subtract = (source: string) => `
  WITH gone AS (SELECT x.contact_id, x.name, count(*) AS n FROM ${source} x WHERE x.contact_id IS NOT NULL GROUP BY 1, 2)
  DELETE FROM contact_event_rollups r USING gone g
   WHERE r.contact_id = g.contact_id AND r.name = g.name AND r.count <= g.n;
  WITH gone AS (
    SELECT x.contact_id, x.name, count(*) AS n, min(x.created_at) AS first_gone, max(x.created_at) AS last_gone
      FROM ${source} x WHERE x.contact_id IS NOT NULL GROUP BY 1, 2)
  UPDATE contact_event_rollups r
     SET count = r.count - g.n,
         first_at = CASE WHEN g.first_gone <= r.first_at
                         THEN coalesce((SELECT min(e.created_at) FROM events e WHERE e.contact_id = r.contact_id AND e.name = r.name), r.first_at)
                         ELSE r.first_at END,
         last_at = CASE WHEN g.last_gone >= r.last_at
                        THEN coalesce((SELECT max(e.created_at) FROM events e WHERE e.contact_id = r.contact_id AND e.name = r.name), r.last_at)
                        ELSE r.last_at END
    FROM gone g
   WHERE r.contact_id = g.contact_id AND r.name = g.name;
  ${hourly(source, '-')}`;

export async function up(knex: Knex): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx.raw(`
      CREATE TABLE IF NOT EXISTS contact_event_rollups (
        contact_id text NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
        name text NOT NULL,
        project_id uuid NOT NULL,
        count bigint NOT NULL,
        first_at timestamptz NOT NULL,
        last_at timestamptz NOT NULL,
        PRIMARY KEY (contact_id, name)
      )`);
    // Top events' unique contacts in a window: the contacts of a name whose last event is recent.
    await trx.raw('CREATE INDEX IF NOT EXISTS contact_event_rollups_name_last ON contact_event_rollups (project_id, name, last_at)');
    await trx.raw(`
      CREATE TABLE IF NOT EXISTS event_hourly_counts (
        project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        name text NOT NULL,
        hour timestamptz NOT NULL,
        slot smallint NOT NULL,
        count bigint NOT NULL,
        PRIMARY KEY (project_id, name, hour, slot)
      )`);
    await trx.raw('CREATE INDEX IF NOT EXISTS event_hourly_counts_hour ON event_hourly_counts (project_id, hour)');

    await trx.raw(`CREATE OR REPLACE FUNCTION svc_event_rollups_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN ${add('new_events')} RETURN NULL; END $$`);
    await trx.raw(`CREATE OR REPLACE FUNCTION svc_event_rollups_delete() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN ${subtract('old_events')} RETURN NULL; END $$`);
    // Only rows whose counted keys changed (tests backdate events; routing's `SET routed_at` changes none):
    // their old version is subtracted, their new one added.
    const changed = (side: 'o' | 'n') =>
      `(SELECT ${side}.* FROM old_events o JOIN new_events n ON n.id = o.id
         WHERE (o.project_id, o.contact_id, o.name, o.created_at) IS DISTINCT FROM (n.project_id, n.contact_id, n.name, n.created_at))`;
    await trx.raw(`CREATE OR REPLACE FUNCTION svc_event_rollups_update() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS ${changed('o')} THEN ${subtract(changed('o'))} ${add(changed('n'))} END IF;
        RETURN NULL;
      END $$`);

    await trx.raw('DROP TRIGGER IF EXISTS events_rollups_insert ON events');
    await trx.raw(
      'CREATE TRIGGER events_rollups_insert AFTER INSERT ON events REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION svc_event_rollups_insert()',
    );
    await trx.raw('DROP TRIGGER IF EXISTS events_rollups_delete ON events');
    await trx.raw(
      'CREATE TRIGGER events_rollups_delete AFTER DELETE ON events REFERENCING OLD TABLE AS old_events FOR EACH STATEMENT EXECUTE FUNCTION svc_event_rollups_delete()',
    );
    await trx.raw('DROP TRIGGER IF EXISTS events_rollups_update ON events');
    await trx.raw(
      'CREATE TRIGGER events_rollups_update AFTER UPDATE ON events REFERENCING OLD TABLE AS old_events NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION svc_event_rollups_update()',
    );
  });
  // From here every write keeps the rollups; the backfill fills in what was written before.
  await backfillEventRollups(knex);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS events_rollups_insert ON events');
  await knex.raw('DROP TRIGGER IF EXISTS events_rollups_delete ON events');
  await knex.raw('DROP TRIGGER IF EXISTS events_rollups_update ON events');
  await knex.raw('DROP FUNCTION IF EXISTS svc_event_rollups_insert()');
  await knex.raw('DROP FUNCTION IF EXISTS svc_event_rollups_delete()');
  await knex.raw('DROP FUNCTION IF EXISTS svc_event_rollups_update()');
  await knex.raw('DROP TABLE IF EXISTS event_hourly_counts');
  await knex.raw('DROP TABLE IF EXISTS contact_event_rollups');
}
