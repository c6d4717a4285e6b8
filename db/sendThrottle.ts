import type { Knex } from 'knex';

/**
 * The per-project send throttle's state (docs/providers.md "Per-project send throttle"): one row per
 * project holding when its next delivery slot is free, GCRA style. A reservation of n slots is one
 * statement that moves `next_free` to max(next_free, now) + n / rate and returns where the slots
 * begin, so workers on any machine share the rate without a lock held across a wait. Waits are
 * computed from Postgres' clock, the one clock every worker shares.
 */

/** Slots reserved: the first begins `waitMs` from now (0 or less: at once). */
export interface Reserved {
  reserved: true;
  rate: number;
  waitMs: number;
}

/** Nothing reserved: the queue ahead ends `queuedMs` from now, beyond the caller's longest wait. */
export interface Queued {
  reserved: false;
  rate: number;
  queuedMs: number;
}

interface ReserveRow {
  rate: number;
  end_ms: number | null;
  queued_ms: number;
}

/**
 * Reserves `count` slots for the project at its rate (its own `send_rate_per_second`, else
 * `defaultRate`), unless they would begin more than `maxWaitMs` from now: then nothing is reserved
 * and the caller comes back later rather than sit on a slot far ahead. undefined: no such project.
 */
export async function reserveSendSlots(
  db: Knex,
  input: { projectId: string; count: number; defaultRate: number; maxWaitMs: number | null },
): Promise<Reserved | Queued | undefined> {
  const { rows } = await db.raw<{ rows: ReserveRow[] }>(
    `WITH p AS (SELECT coalesce(send_rate_per_second, ?::float8) AS rate FROM projects WHERE id = ?),
          up AS (
            INSERT INTO send_throttle AS t (project_id, next_free, default_rate_per_second)
            SELECT ?, clock_timestamp() + make_interval(secs => ?::float8 / p.rate), ?::float8 FROM p
            ON CONFLICT (project_id) DO UPDATE
               SET next_free = greatest(t.next_free, clock_timestamp()) + make_interval(secs => ?::float8 / (SELECT rate FROM p)),
                   default_rate_per_second = excluded.default_rate_per_second
             WHERE ?::float8 IS NULL OR greatest(t.next_free, clock_timestamp()) <= clock_timestamp() + make_interval(secs => ?::float8 / 1000)
            RETURNING t.next_free)
     SELECT p.rate,
            (SELECT extract(epoch FROM up.next_free - clock_timestamp()) * 1000 FROM up)::float8 AS end_ms,
            coalesce((SELECT extract(epoch FROM greatest(s.next_free, clock_timestamp()) - clock_timestamp()) * 1000
                        FROM send_throttle s WHERE s.project_id = ?), 0)::float8 AS queued_ms
       FROM p`,
    [input.defaultRate, input.projectId, input.projectId, input.count, input.defaultRate, input.count, input.maxWaitMs, input.maxWaitMs, input.projectId],
  );
  const row = rows[0];
  if (!row) return undefined;
  const rate = Number(row.rate);
  if (row.end_ms === null) return { reserved: false, rate, queuedMs: Number(row.queued_ms) };
  return { reserved: true, rate, waitMs: Number(row.end_ms) - (input.count / rate) * 1000 };
}

/**
 * Takes the slot held for an email by an earlier attempt (and forgets it): how far from now it
 * begins; undefined when none is held.
 */
export async function takeHeldSlot(db: Knex, emailId: string): Promise<number | undefined> {
  const { rows } = await db.raw<{ rows: { wait_ms: number }[] }>(
    `DELETE FROM send_throttle_holds WHERE email_id = ?
     RETURNING (extract(epoch FROM starts_at - clock_timestamp()) * 1000)::float8 AS wait_ms`,
    [emailId],
  );
  return rows[0] ? Number(rows[0].wait_ms) : undefined;
}

/**
 * Keeps a reserved slot for an email whose wait a retry carries. Holds of emails that never came
 * back (their workflow ended meanwhile) are cleared here, a day after their slot, so the table
 * holds only live waits.
 */
export async function holdSlot(db: Knex, input: { emailId: string; projectId: string; waitMs: number }): Promise<void> {
  await db.raw(
    `WITH stale AS (DELETE FROM send_throttle_holds WHERE project_id = ? AND starts_at < clock_timestamp() - interval '1 day')
     INSERT INTO send_throttle_holds (email_id, project_id, starts_at)
     VALUES (?, ?, clock_timestamp() + make_interval(secs => ?::float8 / 1000))
     ON CONFLICT (email_id) DO UPDATE SET starts_at = excluded.starts_at`,
    [input.projectId, input.emailId, input.projectId, input.waitMs],
  );
}

/** A project's send rate: its own when set, else `defaultRate`; undefined: no such project. */
export async function projectSendRate(db: Knex, projectId: string, defaultRate: number): Promise<number | undefined> {
  const row = await db('projects').where({ id: projectId }).first('send_rate_per_second');
  return row ? Number(row.send_rate_per_second ?? defaultRate) : undefined;
}

/**
 * What paces a project as far as the API can tell: its own rate, and the workers' default as of
 * their last reservation for it (null before its first throttled delivery).
 */
export async function projectThrottleRates(db: Knex, projectId: string): Promise<{ own: number | null; workersDefault: number | null }> {
  const row = await db('projects as p')
    .leftJoin('send_throttle as t', 't.project_id', 'p.id')
    .where('p.id', projectId)
    .first('p.send_rate_per_second', 't.default_rate_per_second');
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return { own: num(row?.send_rate_per_second), workersDefault: num(row?.default_rate_per_second) };
}

export interface Pacing {
  /** Deliveries per second the campaign's hand-over is held to at most. */
  ratePerSecond: number;
  /** Which limit is the lower one: the project's send throttle or the campaign's `sendRatePerMinute`. */
  source: 'project' | 'campaign';
}

/**
 * A campaign's pacing (GET /campaigns/:id/stats): the lower of the project's send rate (its setting,
 * else `defaultRate`, SEND_RATE_PER_SECOND, which the API and the workers share) and the campaign's
 * own `sendRatePerMinute`.
 */
export async function campaignPacing(db: Knex, projectId: string, sendRatePerMinute: number | null | undefined, defaultRate: number): Promise<Pacing> {
  const project = (await projectThrottleRates(db, projectId)).own ?? defaultRate;
  const campaign = sendRatePerMinute ? sendRatePerMinute / 60 : null;
  if (campaign !== null && campaign < project) return { ratePerSecond: campaign, source: 'campaign' };
  return { ratePerSecond: project, source: 'project' };
}
