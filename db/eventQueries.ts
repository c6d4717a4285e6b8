import type { Knex } from 'knex';
import { decodeCursor, encodeCursor, isTimeKey, timeKeySql } from './cursors';
import { EDGE_SQL, edgeBindings, hourSplit } from './eventRollups';

const HOUR_MS = 3_600_000;

/**
 * Read and bulk-delete queries over `events` for the dashboard (GET /events…, DELETE /events/:name).
 * Writers live in db/events.ts. Every query is scoped to one project and walks an index.
 */

// ───────────────────────────── newest-first keyset cursors ─────────────────────────────

/** Position after the last row of a newest-first page: its timestamp (microseconds, UTC) and id. */
export interface TimeCursor {
  at: string;
  id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const encodeTimeCursor = (c: TimeCursor) => encodeCursor([c.at, c.id]);

/** null for anything this API did not hand out (db/cursors). */
export function parseTimeCursor(raw: string): TimeCursor | null {
  const v = decodeCursor(raw, 2);
  return v && isTimeKey(v[0]) && UUID.test(v[1]) ? { at: v[0], id: v[1] } : null;
}

export interface TimePage<T> {
  rows: T[];
  cursor: string | null;
  hasMore: boolean;
}

/** Cuts a `limit + 1` fetch into a page and the cursor of its last row. */
export function timePage<T extends { sort_key: string; id: string }>(rows: T[], limit: number): TimePage<Omit<T, 'sort_key'>> {
  const hasMore = rows.length > limit;
  const kept = rows.slice(0, limit);
  const last = kept[kept.length - 1];
  return {
    rows: kept.map(({ sort_key: _key, ...row }) => row),
    cursor: hasMore && last ? encodeTimeCursor({ at: last.sort_key, id: last.id }) : null,
    hasMore,
  };
}

// ───────────────────────────── listings ─────────────────────────────

export interface EventListRow {
  id: string;
  name: string;
  contact_id: string | null;
  contact_email: string | null;
  data: Record<string, unknown>;
  created_at: Date;
}

export interface ListEventsInput {
  projectId: string;
  limit: number;
  after?: TimeCursor;
  name?: string;
  contactId?: string;
  /** Inclusive lower and exclusive upper bound on created_at. */
  from?: Date;
  to?: Date;
}

/** Newest first, keyset over (created_at, id); never OFFSET. */
export async function listEvents(db: Knex, input: ListEventsInput): Promise<TimePage<EventListRow>> {
  const q = db({ e: 'events' })
    .leftJoin({ c: 'contacts' }, 'c.id', 'e.contact_id')
    .where('e.project_id', input.projectId)
    .select('e.id', 'e.name', 'e.contact_id', 'c.email as contact_email', 'e.data', 'e.created_at', db.raw(`${timeKeySql('e.created_at')} AS sort_key`))
    .orderBy([
      { column: 'e.created_at', order: 'desc' },
      { column: 'e.id', order: 'desc' },
    ])
    .limit(input.limit + 1);
  if (input.name !== undefined) q.andWhere('e.name', input.name);
  if (input.contactId !== undefined) q.andWhere('e.contact_id', input.contactId);
  if (input.from) q.andWhere('e.created_at', '>=', input.from);
  if (input.to) q.andWhere('e.created_at', '<', input.to);
  if (input.after) q.andWhereRaw('(e.created_at, e.id) < (?::timestamptz, ?::uuid)', [input.after.at, input.after.id]);
  return timePage((await q) as Array<EventListRow & { sort_key: string }>, input.limit);
}

export interface NameCount {
  name: string;
  count: number;
  uniqueContacts: number;
}

export interface CountByNameInput {
  projectId: string;
  from: Date;
  to: Date;
  limit: number;
  /** Names left out (the service's own lifecycle events, for "top tracked events"). */
  excludeNames?: readonly string[];
  /**
   * `to` is the caller's "now" (a dashboard window ending now): the last, partial hour is read from
   * its hourly row, which holds that hour's events so far, instead of from the log. Exact up to the
   * events committed between `to` and the query (created_at is the insert's now(), never given by a
   * client); a burst of a million events in the current hour (a segment compute, a campaign's
   * email.sent) then costs one row, not a million.
   */
  untilNow?: boolean;
}

/**
 * Events per name in [from, to), most frequent first, from the rollups of migration 059 (db/eventRollups):
 * the whole UTC hours of the window from the hourly counts, its partial first and last hour from the
 * log. Unique contacts from the per-contact rollup: a contact whose last event of the name falls in
 * the window counts; one whose last is at or after `to` (the last milliseconds, or a backdated
 * window) is checked in the log. One statement, so both read the same snapshot.
 */
export async function countEventsByName(db: Knex, input: CountByNameInput): Promise<NameCount[]> {
  const split = hourSplit(input.from, input.to);
  const lastHourFromRollup = input.untilNow === true && split.wholeTo.getTime() <= input.to.getTime();
  const hoursTo = lastHourFromRollup ? new Date(split.wholeTo.getTime() + HOUR_MS) : split.wholeTo;
  // With the last hour from the rollup, the log's second edge [wholeTo, to) becomes [to, to): empty.
  const edges = lastHourFromRollup ? edgeBindings({ ...split, wholeTo: split.to }) : edgeBindings(split);
  const { rows } = await db.raw(
    `WITH totals AS (
       SELECT name, sum(n)::bigint AS n FROM (
         SELECT e.name, count(*) AS n FROM events e WHERE e.project_id = ? AND ${EDGE_SQL} GROUP BY e.name
         UNION ALL
         SELECT h.name, sum(h.count) FROM event_hourly_counts h WHERE h.project_id = ? AND h.hour >= ? AND h.hour < ? GROUP BY h.name
       ) x
        WHERE name NOT IN (SELECT jsonb_array_elements_text(?::jsonb))
        GROUP BY name HAVING sum(n) > 0
        ORDER BY 2 DESC, 1 LIMIT ?
     )
     SELECT t.name, t.n::int AS count,
            ((SELECT count(*) FROM contact_event_rollups r WHERE r.project_id = ? AND r.name = t.name AND r.last_at >= ? AND r.last_at < ?)
           + (SELECT count(*) FROM contact_event_rollups r WHERE r.project_id = ? AND r.name = t.name AND r.last_at >= ? AND r.first_at < ?
                 AND EXISTS (SELECT 1 FROM events e WHERE e.contact_id = r.contact_id AND e.name = r.name AND e.created_at >= ? AND e.created_at < ?)))::int AS "uniqueContacts"
       FROM totals t
      ORDER BY t.n DESC, t.name`,
    [
      input.projectId,
      ...edges,
      input.projectId,
      split.wholeFrom,
      hoursTo,
      JSON.stringify(input.excludeNames ?? []),
      input.limit,
      input.projectId,
      input.from,
      input.to,
      input.projectId,
      input.to,
      input.to,
      input.from,
      input.to,
    ],
  );
  return rows;
}

/** Events in [from, to). */
export async function countEvents(db: Knex, projectId: string, from: Date, to: Date): Promise<{ total: number; uniqueContacts: number }> {
  const [row] = await db('events')
    .where('project_id', projectId)
    .andWhere('created_at', '>=', from)
    .andWhere('created_at', '<', to)
    .select(db.raw('count(*)::int AS total'), db.raw('count(DISTINCT contact_id)::int AS "uniqueContacts"'));
  return row;
}

export interface EventNameRow {
  name: string;
  lastSeen: Date;
  /** Events of that name since `since`. */
  count: number;
}

/**
 * Every distinct name the project has recorded (up to `limit`), with its latest occurrence and its
 * count in the window. The names come from a skip scan of the (project_id, name, created_at) index
 * (one index probe per distinct name), so a project with millions of events answers as fast as one
 * with a hundred; only the counts are bounded by the window.
 */
export async function eventNames(db: Knex, projectId: string, since: Date, limit: number): Promise<EventNameRow[]> {
  const { rows } = await db.raw(
    `WITH RECURSIVE names(name, n) AS (
       (SELECT name, 1 FROM events WHERE project_id = ? ORDER BY name LIMIT 1)
       UNION ALL
       SELECT (SELECT e.name FROM events e WHERE e.project_id = ? AND e.name > names.name ORDER BY e.name LIMIT 1), n + 1
         FROM names WHERE names.name IS NOT NULL AND n < ?
     )
     SELECT names.name,
            (SELECT max(e.created_at) FROM events e WHERE e.project_id = ? AND e.name = names.name) AS "lastSeen",
            (SELECT count(*)::int FROM events e WHERE e.project_id = ? AND e.name = names.name AND e.created_at >= ?) AS count
       FROM names WHERE names.name IS NOT NULL
      ORDER BY names.name`,
    [projectId, projectId, limit, projectId, projectId, since],
  );
  return rows;
}

// ───────────────────────────── deletion ─────────────────────────────

const DELETE_BATCH = 1000;

/**
 * Deletes every event of that name in the project, `batch` rows per statement, each statement its
 * own transaction: a name with millions of rows never holds one huge transaction or its locks.
 * Returns how many were deleted.
 */
export async function deleteEventsByName(db: Knex, projectId: string, name: string, batch = DELETE_BATCH): Promise<number> {
  let deleted = 0;
  for (;;) {
    const r = await db.raw(`DELETE FROM events WHERE id IN (SELECT id FROM events WHERE project_id = ? AND name = ? LIMIT ?)`, [projectId, name, batch]);
    deleted += r.rowCount ?? 0;
    if ((r.rowCount ?? 0) < batch) return deleted;
  }
}
