import type { Next } from 'koa';
import type { AppContext } from '../context';
import { DomainError } from '../../lib/domainErrors';
import { ApiError, fromDomainError, validationError } from '../errors';
import { claimIdempotencyKey, completeIdempotencyKey, isValidIdempotencyKey, releaseIdempotencyKey } from '../../db/idempotency';

const HEADER = 'Idempotency-Key';

/**
 * docs/api.md, "Idempotency-Key": the key is claimed before any work; reuse is refused (409), except
 * on a replaying route (POST /v1/send/batch), which answers a finished request's key with its
 * stored answer (and `Idempotent-Replayed: true`) on the same method and path.
 */
export async function idempotency(ctx: AppContext, next: Next) {
  const raw = ctx.get(HEADER);
  if (raw === '' && !(HEADER.toLowerCase() in ctx.headers)) return next();
  if (!isValidIdempotencyKey(raw)) {
    throw validationError([{ field: HEADER, code: 'invalid_string', message: 'Idempotency-Key must be 1 to 255 printable ASCII characters' }]);
  }
  const { knex, config } = ctx.deps;
  // Only routes with a project principal (secret key) are idempotent; the auth middleware ran first.
  const projectId = ctx.state.project?.id;
  if (!projectId) throw new Error(`${ctx.method} ${ctx.path}: Idempotency-Key needs a project principal`);
  const holder = await claimIdempotencyKey(knex, projectId, raw, { method: ctx.method, path: ctx.path }, config.idempotencyTtlHours);
  const replay = !!ctx.state.route?.replay;
  if (holder && replay && holder.status_code !== null && holder.response != null && holder.method === ctx.method && holder.path === ctx.path) {
    ctx.status = holder.status_code;
    ctx.body = holder.response;
    ctx.set('Idempotent-Replayed', 'true');
    return;
  }
  if (holder) {
    throw new ApiError(409, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used in this project', {
      details: {
        key: raw,
        originalRequest: { method: holder.method, path: holder.path },
        originalRequestAt: new Date(holder.created_at).toISOString(),
        originalStatusCode: holder.status_code,
      },
      suggestion: 'Use a new Idempotency-Key for a new request',
    });
  }
  try {
    await next();
  } catch (err) {
    // An answer given on purpose (a domain rule's too) holds the key; an outage releases it for a retry.
    const answer = err instanceof DomainError ? fromDomainError(err) : err;
    const status = answer instanceof ApiError ? answer.status : 500;
    if (status >= 500) await releaseIdempotencyKey(knex, projectId, raw);
    else await completeIdempotencyKey(knex, projectId, raw, status);
    throw err;
  }
  if (ctx.status >= 500) await releaseIdempotencyKey(knex, projectId, raw);
  else await completeIdempotencyKey(knex, projectId, raw, ctx.status, replay ? ctx.body : undefined);
}
