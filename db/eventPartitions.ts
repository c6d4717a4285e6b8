import type { Knex } from 'knex';

/**
 * The monthly partitions of `events` (migration 063, docs/capacity.md "Events partitioned by
 * month"): created ahead by the maintenance sweep, dropped whole by retention once every project
 * with rows in one has its events window past the partition's end.
 */

export interface EventPartition {
  name: string;
  /** null: MINVALUE (the table that was `events` before 063) or the DEFAULT partition's none. */
  from: Date | null;
  /** null: the DEFAULT partition. */
  to: Date | null;
  isDefault: boolean;
}

/** Months of partitions the maintenance sweep keeps ready past the current one. */
export const EVENT_PARTITION_MONTHS_AHEAD = 3;

/** Waiting longer for a lock than this would hold every event writer queued behind the DDL. */
const LOCK_TIMEOUT = '2s';
/** One advisory lock for partition DDL, so two sweeps never create or drop the same month at once. */
const PARTITION_DDL_LOCK = 'events-partitions';

const monthStart = (d: Date, months: number) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1));
export const eventPartitionName = (from: Date) => `events_y${from.getUTCFullYear()}m${String(from.getUTCMonth() + 1).padStart(2, '0')}`;

const BOUND = /^FOR VALUES FROM \((MINVALUE|'[^']+')\) TO \((MAXVALUE|'[^']+')\)$/;
const boundDate = (v: string) => (v === 'MINVALUE' || v === 'MAXVALUE' ? null : new Date(v.slice(1, -1)));

export async function eventPartitions(db: Knex): Promise<EventPartition[]> {
  const { rows } = await db.raw(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'public.events'::regclass`,
  );
  return rows
    .map((r: { name: string; bound: string }): EventPartition => {
      if (r.bound === 'DEFAULT') return { name: r.name, from: null, to: null, isDefault: true };
      const m = BOUND.exec(r.bound);
      if (!m) throw new Error(`events partition ${r.name} has a bound this code cannot read: ${r.bound}`);
      return { name: r.name, from: boundDate(m[1]), to: boundDate(m[2]), isDefault: false };
    })
    .sort((a: EventPartition, b: EventPartition) => (a.from?.getTime() ?? -Infinity) - (b.from?.getTime() ?? -Infinity));
}

async function ddl<T>(db: Knex, fn: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return db.transaction(async (trx) => {
    await trx.raw(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
    await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [PARTITION_DDL_LOCK]);
    return fn(trx);
  });
}

/**
 * ddl, except that a lock not granted within LOCK_TIMEOUT (a long read of `events` in progress)
 * skips this partition: the next hourly run tries again, and the row-wise rounds run meanwhile.
 */
async function ddlUnlessBusy(db: Knex, fn: (trx: Knex.Transaction) => Promise<void>): Promise<void> {
  try {
    await ddl(db, fn);
  } catch (err: any) {
    if (err?.code !== '55P03') throw err;
  }
}

const covers = (p: EventPartition, from: Date, to: Date) => !p.isDefault && (p.from === null || p.from < to) && (p.to === null || p.to > from);

/**
 * Makes sure a partition exists for this month and each of the next `monthsAhead`, and the DEFAULT
 * partition. Idempotent: a month already covered (by its own partition or the pre-partitioning
 * table's range) is left alone. Rows that fell into the DEFAULT partition for a month being created
 * (the sweep was behind) are moved into it in the same transaction: none is lost. Returns the names created.
 */
export async function ensureEventPartitions(db: Knex, monthsAhead: number, now = new Date()): Promise<string[]> {
  const existing = await eventPartitions(db);
  const due: Array<{ from: Date; to: Date }> = [];
  for (let m = 0; m <= monthsAhead; m++) {
    const from = monthStart(now, m);
    const to = monthStart(now, m + 1);
    if (!existing.some((p) => covers(p, from, to))) due.push({ from, to });
  }
  const created: string[] = [];
  if (!existing.some((p) => p.isDefault)) {
    await ddl(db, (trx) => trx.raw('CREATE TABLE IF NOT EXISTS events_default PARTITION OF events DEFAULT'));
  }
  for (const { from, to } of due) {
    const name = eventPartitionName(from);
    await ddl(db, async (trx) => {
      // Checked again under the lock: another sweep may have made it meanwhile.
      if ((await eventPartitions(trx)).some((p) => covers(p, from, to))) return;
      // Creating a range next to a DEFAULT partition fails if the default holds rows of that range: move them.
      // Deleted through the parent (no partition holds that range yet, so only DEFAULT's rows match): the
      // parent's statement triggers take them out of the event rollups, and the insert below puts them back.
      await trx.raw(
        `CREATE TEMP TABLE events_moving ON COMMIT DROP AS
           WITH d AS (DELETE FROM events WHERE created_at >= ? AND created_at < ? RETURNING *) SELECT * FROM d`,
        [from, to],
      );
      // DDL takes no bind parameters; toISOString() yields only digits, '-', ':', '.', 'T' and 'Z'.
      await trx.raw(`CREATE TABLE ${name} PARTITION OF events FOR VALUES FROM ('${from.toISOString()}') TO ('${to.toISOString()}')`);
      await trx.raw('INSERT INTO events SELECT * FROM events_moving');
      created.push(name);
    });
  }
  return created;
}

export interface DroppedPartition {
  name: string;
  /** Rows kept (unrouted, `contact.unsubscribed`): moved to the DEFAULT partition before the drop. */
  kept: number;
}

/**
 * Drops the range partitions wholly past the events window of every project with rows in them,
 * instead of deleting their rows one by one. `cutoffs` gives each project's events cutoff (those
 * with no events retention are absent: their rows keep a partition). The rows retention never
 * deletes (db/retention.ts pruneEvents: unrouted ones, `contact.unsubscribed`) are moved to the
 * DEFAULT partition in the same transaction. Partitions with rows of any project whose cutoff is
 * before the partition's end stay, and retention deletes their due rows row-wise.
 */
export async function dropExpiredEventPartitions(db: Knex, cutoffs: Map<string, Date>, now = new Date()): Promise<DroppedPartition[]> {
  const dropped: DroppedPartition[] = [];
  for (const p of await eventPartitions(db)) {
    // Only months that are over: an empty month ahead is not "past every window".
    if (p.isDefault || !p.to || p.to > now) continue;
    const to = p.to;
    const covered = [...cutoffs].filter(([, cutoff]) => cutoff >= to).map(([id]) => id);
    // A project not covered with a row in it keeps the partition: one index probe per project (project_id leads).
    const { rows } = await db.raw(
      `SELECT 1 FROM projects p WHERE NOT (p.id = ANY(?::uuid[])) AND EXISTS (SELECT 1 FROM ${p.name} e WHERE e.project_id = p.id) LIMIT 1`,
      [covered],
    );
    if (rows.length) continue;
    await ddlUnlessBusy(db, async (trx) => {
      await trx.raw(`ALTER TABLE events DETACH PARTITION ${p.name}`);
      // No trigger sees a dropped partition: its rows leave the event rollups here (migration 060), and
      // the rows kept are counted again as the insert into the parent below adds them.
      await trx.raw('SELECT svc_event_rollups_forget(?::regclass)', [p.name]);
      const kept = await trx.raw(`INSERT INTO events SELECT * FROM ${p.name} WHERE routed_at IS NULL OR name = 'contact.unsubscribed'`);
      await trx.raw(`DROP TABLE ${p.name}`);
      dropped.push({ name: p.name, kept: kept.rowCount ?? 0 });
    });
  }
  return dropped;
}
