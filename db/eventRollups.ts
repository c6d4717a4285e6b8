import type { Knex } from 'knex';

/**
 * The event rollups of migration 059: `contact_event_rollups` (per contact and name: count, first_at,
 * last_at) and `event_hourly_counts` (per project, name and UTC hour, split over slots whose sum is
 * the count). Triggers on `events` keep them; this file fills them for events written before the
 * triggers existed, and holds the window arithmetic the readers share.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** [from, to) cut into the whole UTC hours the hourly counts answer and the partial hours the log answers. */
export function hourSplit(from: Date, to: Date): { from: Date; wholeFrom: Date; wholeTo: Date; to: Date } {
  const wholeFrom = new Date(Math.ceil(from.getTime() / HOUR_MS) * HOUR_MS);
  const wholeTo = new Date(Math.max(Math.floor(to.getTime() / HOUR_MS) * HOUR_MS, wholeFrom.getTime()));
  return { from, wholeFrom, wholeTo, to };
}

/**
 * SQL (over `events e`): e.created_at in the partial hours of a split, [from, wholeFrom) and
 * [wholeTo, to), both clipped to [from, to). Bindings: from, wholeFrom, to, wholeTo, to.
 */
export const EDGE_SQL = '((e.created_at >= ? AND e.created_at < least(?::timestamptz, ?::timestamptz)) OR (e.created_at >= ? AND e.created_at < ?))';
export const edgeBindings = (s: ReturnType<typeof hourSplit>) => [s.from, s.wholeFrom, s.to, s.wholeTo, s.to];

const CONTACT_BATCH = 5000;

/**
 * Recomputes the rollups from the log, overwriting what is there: run once by migration 059 after its
 * triggers exist, and safe to run again (a repair). Each batch is its own short transaction that
 * holds what it recounts still: a batch of contacts is locked FOR UPDATE (an event insert takes FOR
 * KEY SHARE on its contact, so it waits, and the batch's count then includes every committed event);
 * a day of a project's hourly counts is recounted under a SHARE lock on events (writes wait for the
 * milliseconds of one day's count; reads go on).
 */
export async function backfillEventRollups(knex: Knex, log: (line: string) => void = () => {}): Promise<void> {
  let after = '';
  let contacts = 0;
  for (;;) {
    const last = await knex.transaction(async (trx) => {
      const ids: string[] = (await trx.raw('SELECT id FROM contacts WHERE id > ? ORDER BY id LIMIT ? FOR UPDATE', [after, CONTACT_BATCH])).rows.map(
        (r: { id: string }) => r.id,
      );
      if (!ids.length) return null;
      const hi = ids[ids.length - 1];
      await trx.raw('DELETE FROM contact_event_rollups WHERE contact_id > ? AND contact_id <= ?', [after, hi]);
      await trx.raw(
        `INSERT INTO contact_event_rollups (contact_id, name, project_id, count, first_at, last_at)
         SELECT e.contact_id, e.name, min(e.project_id::text)::uuid, count(*), min(e.created_at), max(e.created_at)
           FROM events e WHERE e.contact_id > ? AND e.contact_id <= ?
          GROUP BY e.contact_id, e.name`,
        [after, hi],
      );
      contacts += ids.length;
      return hi;
    });
    if (last === null) break;
    after = last;
    log(`rollups: ${contacts} contacts`);
  }

  const projects: string[] = (await knex.raw('SELECT id FROM projects ORDER BY id')).rows.map((r: { id: string }) => r.id);
  for (const projectId of projects) {
    let cursor: Date | string = '-infinity';
    for (;;) {
      const { rows }: { rows: { at: Date | null }[] } = await knex.raw('SELECT min(created_at) AS at FROM events WHERE project_id = ? AND created_at >= ?', [
        projectId,
        cursor,
      ]);
      if (!rows[0].at) break;
      const day: Date = new Date(Math.floor(new Date(rows[0].at).getTime() / DAY_MS) * DAY_MS);
      const next: Date = new Date(day.getTime() + DAY_MS);
      await knex.transaction(async (trx) => {
        await trx.raw('LOCK TABLE events IN SHARE MODE');
        // From the end of the last day recounted: the days between had no events, so no counts either.
        await trx.raw('DELETE FROM event_hourly_counts WHERE project_id = ? AND hour >= ? AND hour < ?', [projectId, cursor, next]);
        await trx.raw(
          `INSERT INTO event_hourly_counts (project_id, name, hour, slot, count)
           SELECT e.project_id, e.name, date_trunc('hour', e.created_at, 'UTC'), 0, count(*)
             FROM events e WHERE e.project_id = ? AND e.created_at >= ? AND e.created_at < ?
            GROUP BY 1, 2, 3`,
          [projectId, day, next],
        );
      });
      cursor = next;
    }
    await knex.transaction(async (trx) => {
      await trx.raw('LOCK TABLE events IN SHARE MODE');
      await trx.raw('DELETE FROM event_hourly_counts WHERE project_id = ? AND hour >= ?', [projectId, cursor]);
    });
  }
}
