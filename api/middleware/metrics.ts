import type { Next } from 'koa';
import type { AppContext } from '../context';
import { ApiError } from '../errors';
import { bearerTokenMatches, httpRequestDuration, httpRequests, metricsText, METRICS_CONTENT_TYPE } from '../../lib/metrics';

export const METRICS_PATH = '/metrics';

/** Node accepts any token as a method; only these become label values, so a scanner cannot add series. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Outermost middleware: counts and times every answer by the route template the router matched
 * (`/contacts/:id`, never the raw URL, whose ids would make a series per contact).
 */
export async function httpMetrics(ctx: AppContext, next: Next) {
  const end = httpRequestDuration.startTimer();
  let failed = false;
  try {
    await next();
  } catch (err) {
    failed = true;
    throw err;
  } finally {
    const status = failed ? 500 : ctx.status;
    const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
    const labels = {
      method: METHODS.has(ctx.method) ? ctx.method : 'OTHER',
      route: typeof matched === 'string' ? matched : ctx.path === METRICS_PATH ? METRICS_PATH : 'unmatched',
      status_class: `${Math.floor(status / 100)}xx`,
    };
    httpRequests.inc(labels);
    end(labels);
  }
}

/**
 * GET /metrics for Prometheus. Kept off the router on purpose: it is for operators, so it is not
 * in the OpenAPI document, takes no project key and is never rate-limited; METRICS_TOKEN guards it.
 */
export async function metricsEndpoint(ctx: AppContext, next: Next) {
  if (ctx.path !== METRICS_PATH || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
  const token = ctx.deps.config.metrics.token;
  if (token && !bearerTokenMatches(ctx.get('authorization'), token)) {
    throw new ApiError(401, 'UNAUTHORIZED', 'Missing or invalid metrics token', { headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' } });
  }
  ctx.set('Cache-Control', 'no-store');
  ctx.type = METRICS_CONTENT_TYPE;
  ctx.body = await metricsText();
}
