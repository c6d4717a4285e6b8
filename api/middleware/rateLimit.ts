import type { Next } from 'koa';
import type { AppContext } from '../context';
import { ApiError } from '../errors';
import { hitRateLimit } from '../../db/rateLimit';

/** Per-project limit; runs after key auth, so it always knows the project. */
export async function rateLimit(ctx: AppContext, next: Next) {
  const project = ctx.state.project;
  if (!project) return next();
  const r = await hitRateLimit(ctx.deps.knex, project.id, ctx.deps.config.rateLimitPerMinute);
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
  await next();
}
