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

/**
 * The public key's share of the project's limit, in requests per window: at least one, so a tiny
 * limit still lets a page track.
 */
export const publicLimitOf = (limit: number, share: number) => Math.max(1, Math.floor(limit * share));

/**
 * The figures a public-key request sees: its own share is its limit, and it is also refused once
 * the project's limit is spent (all keys together never pass `limit`).
 */
export function publicRateLimitResult(counts: { count: number; publicCount: number }, limit: number, share: number, now: number): RateLimitResult {
  const publicLimit = publicLimitOf(limit, share);
  const project = rateLimitResult(counts.count, limit, now);
  return {
    limit: publicLimit,
    remaining: Math.max(0, Math.min(publicLimit - counts.publicCount, limit - counts.count)),
    resetSeconds: project.resetSeconds,
    allowed: counts.publicCount <= publicLimit && project.allowed,
  };
}

/** Old windows are useless after a minute; the cleanup schedule calls this. */
export async function pruneRateLimits(knex: Knex, now = Date.now()): Promise<number> {
  return knex('rate_limits')
    .where('window_start', '<', new Date(now - 120_000))
    .del();
}
