import crypto from 'node:crypto';
import type { Next } from 'koa';
import type { AppContext } from '../context';

const SAFE_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** Honours a well-formed incoming X-Request-Id (tracing through proxies), else makes one. */
export async function requestId(ctx: AppContext, next: Next) {
  const incoming = ctx.get('X-Request-Id');
  ctx.state.requestId = SAFE_ID.test(incoming) ? incoming : `req_${crypto.randomUUID().replace(/-/g, '')}`;
  ctx.set('X-Request-Id', ctx.state.requestId);
  await next();
}
