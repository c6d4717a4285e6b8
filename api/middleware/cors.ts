import type { Next } from 'koa';
import type { AppContext } from '../context';

/**
 * CORS for public-key routes (/v1/track): a `pk_` key is meant for pages, so any origin may call
 * them. Credentials are a bearer key, never cookies, so the grant is `*` without
 * Allow-Credentials. Secret-key and cookie routes get no grant: browsers keep other origins out.
 */
const ALLOW_HEADERS = 'Authorization, Content-Type, Idempotency-Key, X-Request-Id';
const EXPOSE_HEADERS = 'X-Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After';
/** Browsers cap this (Chromium at 2 hours); it saves a preflight per request. */
const PREFLIGHT_MAX_AGE_SECONDS = 7200;

/** On every answer of the route, errors included (they pass through ctx.set before the envelope). */
export async function publicCors(ctx: AppContext, next: Next) {
  if (ctx.get('Origin')) ctx.set({ 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': EXPOSE_HEADERS });
  await next();
}

export function publicPreflight(methods: string[]) {
  return (ctx: AppContext) => {
    ctx.set({
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Allow-Methods': methods.join(', '),
      'Access-Control-Allow-Headers': ALLOW_HEADERS,
      'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_SECONDS),
      Allow: [...methods, 'OPTIONS'].join(', '),
    });
    ctx.status = 204;
  };
}
