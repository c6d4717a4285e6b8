import type { Knex } from 'knex';

export interface RateLimitResult {
  limit: number;
  remaining: number;
  /** Seconds until the current window ends. */
  resetSeconds: number;
  allowed: boolean;
}

/**
 * Fixed one-minute window counted in Postgres, so every API replica shares it.
 * One upsert per request; the row's count after our increment decides.
 */
export async function hitRateLimit(knex: Knex, projectId: string, limit: number, now = Date.now()): Promise<RateLimitResult> {
  const windowStart = Math.floor(now / 60_000) * 60_000;
  const { rows } = await knex.raw(
    `INSERT INTO rate_limits (project_id, window_start, count) VALUES (?, ?, 1)
     ON CONFLICT (project_id, window_start) DO UPDATE SET count = rate_limits.count + 1
     RETURNING count`,
    [projectId, new Date(windowStart)],
  );
  const count: number = rows[0].count;
  return {
    limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: Math.max(1, Math.ceil((windowStart + 60_000 - now) / 1000)),
    allowed: count <= limit,
  };
}

/** Old windows are useless after a minute; the cleanup schedule calls this. */
export async function pruneRateLimits(knex: Knex, now = Date.now()): Promise<number> {
  return knex('rate_limits').where('window_start', '<', new Date(now - 120_000)).del();
}
