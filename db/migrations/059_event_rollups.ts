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
 * No UPDATE trigger: what the rollups count by (project, contact, name, created_at) is never updated
 * (routing only sets routed_at); a row trigger refuses it, so a future writer cannot drift them.
 *
 * Not in a transaction: the backfill locks in small batches (db/eventRollups.ts) instead of
 * holding events for the whole table.
 */
export const config = { transaction: false };

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

    await trx.raw(`
      CREATE OR REPLACE FUNCTION svc_event_rollups_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO contact_event_rollups AS r (contact_id, name, project_id, count, first_at, last_at)
        SELECT n.contact_id, n.name, n.project_id, count(*), min(n.created_at), max(n.created_at)
          FROM new_events n WHERE n.contact_id IS NOT NULL
         GROUP BY n.contact_id, n.name, n.project_id
         ORDER BY n.contact_id, n.name
        ON CONFLICT (contact_id, name) DO UPDATE
          SET count = r.count + EXCLUDED.count,
              first_at = least(r.first_at, EXCLUDED.first_at),
              last_at = greatest(r.last_at, EXCLUDED.last_at);
        INSERT INTO event_hourly_counts AS h (project_id, name, hour, slot, count)
        SELECT n.project_id, n.name, date_trunc('hour', n.created_at, 'UTC'), pg_backend_pid() % 8, count(*)
          FROM new_events n
         GROUP BY 1, 2, 3
         ORDER BY 1, 2, 3
        ON CONFLICT (project_id, name, hour, slot) DO UPDATE SET count = h.count + EXCLUDED.count;
        RETURN NULL;
      END $$`);

    // A deletion lowers the counts; first_at/last_at are looked up again in the log only when a
    // deleted event was the first or the last (retention removes the oldest: first_at only). A key
    // whose every event went loses its row, so "has a row" means "triggered".
    await trx.raw(`
      CREATE OR REPLACE FUNCTION svc_event_rollups_delete() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        WITH gone AS (SELECT o.contact_id, o.name, count(*) AS n FROM old_events o WHERE o.contact_id IS NOT NULL GROUP BY 1, 2)
        DELETE FROM contact_event_rollups r USING gone g
         WHERE r.contact_id = g.contact_id AND r.name = g.name AND r.count <= g.n;
        WITH gone AS (
          SELECT o.contact_id, o.name, count(*) AS n, min(o.created_at) AS first_gone, max(o.created_at) AS last_gone
            FROM old_events o WHERE o.contact_id IS NOT NULL GROUP BY 1, 2)
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
        -- A negative count in this backend's slot: the slots' sum is what is read.
        INSERT INTO event_hourly_counts AS h (project_id, name, hour, slot, count)
        SELECT o.project_id, o.name, date_trunc('hour', o.created_at, 'UTC'), pg_backend_pid() % 8, -count(*)
          FROM old_events o
         GROUP BY 1, 2, 3
         ORDER BY 1, 2, 3
        ON CONFLICT (project_id, name, hour, slot) DO UPDATE SET count = h.count + EXCLUDED.count;
        RETURN NULL;
      END $$`);

    await trx.raw(`
      CREATE OR REPLACE FUNCTION svc_events_keys_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF (NEW.project_id, NEW.contact_id, NEW.name, NEW.created_at) IS DISTINCT FROM (OLD.project_id, OLD.contact_id, OLD.name, OLD.created_at) THEN
          RAISE EXCEPTION 'events: project_id, contact_id, name and created_at are never updated (event rollups count by them)';
        END IF;
        RETURN NEW;
      END $$`);

    await trx.raw('DROP TRIGGER IF EXISTS events_rollups_insert ON events');
    await trx.raw(
      'CREATE TRIGGER events_rollups_insert AFTER INSERT ON events REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION svc_event_rollups_insert()',
    );
    await trx.raw('DROP TRIGGER IF EXISTS events_rollups_delete ON events');
    await trx.raw(
      'CREATE TRIGGER events_rollups_delete AFTER DELETE ON events REFERENCING OLD TABLE AS old_events FOR EACH STATEMENT EXECUTE FUNCTION svc_event_rollups_delete()',
    );
    await trx.raw('DROP TRIGGER IF EXISTS events_keys_immutable ON events');
    // A column list: routing's `SET routed_at` never runs it.
    await trx.raw(
      'CREATE TRIGGER events_keys_immutable BEFORE UPDATE OF project_id, contact_id, name, created_at ON events FOR EACH ROW EXECUTE FUNCTION svc_events_keys_immutable()',
    );
  });
  // From here every write keeps the rollups; the backfill fills in what was written before.
  await backfillEventRollups(knex);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS events_rollups_insert ON events');
  await knex.raw('DROP TRIGGER IF EXISTS events_rollups_delete ON events');
  await knex.raw('DROP TRIGGER IF EXISTS events_keys_immutable ON events');
  await knex.raw('DROP FUNCTION IF EXISTS svc_event_rollups_insert()');
  await knex.raw('DROP FUNCTION IF EXISTS svc_event_rollups_delete()');
  await knex.raw('DROP FUNCTION IF EXISTS svc_events_keys_immutable()');
  await knex.raw('DROP TABLE IF EXISTS event_hourly_counts');
  await knex.raw('DROP TABLE IF EXISTS contact_event_rollups');
}
