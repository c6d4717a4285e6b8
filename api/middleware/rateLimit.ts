import type { AppContext } from '../context';
import { ApiError } from '../errors';
import type { RateLimitResult } from '../../db/rateLimit';

/**
 * Per-project limit (docs/api.md, "Rate limit"). The count comes from the key lookup's own statement
 * (db/projects findProjectByKeyCounting), so limiting costs no extra round trip.
 */
export function applyRateLimit(ctx: AppContext, r: RateLimitResult): void {
  const headers = {
    'RateLimit-Limit': String(r.limit),
    'RateLimit-Remaining': String(r.remaining),
    'RateLimit-Reset': String(r.resetSeconds),
  };
  if (!r.allowed) {
    throw new ApiError(429, 'RATE_LIMIT_EXCEEDED', `Rate limit of ${r.limit} requests per minute exceeded`, {
      headers: { ...headers, 'Retry-After': String(r.resetSeconds) },
      suggestion: `Retry after ${r.resetSeconds} seconds`,
    });
  }
  ctx.set(headers);
}
