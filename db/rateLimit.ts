import type { Knex } from 'knex';

export interface RateLimitResult {
  limit: number;
  remaining: number;
  /** Seconds until the current window ends. */
  resetSeconds: number;
  allowed: boolean;
}

/** Fixed one-minute windows counted in Postgres (db/projects findProjectByKeyCounting), shared by every replica. */
export const windowStartOf = (now: number) => Math.floor(now / 60_000) * 60_000;

/** The figures clients see, from the window's count after this request. */
export function rateLimitResult(count: number, limit: number, now: number): RateLimitResult {
  const windowStart = windowStartOf(now);
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
