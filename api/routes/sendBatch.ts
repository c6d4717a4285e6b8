import type { z } from 'zod';
import { route } from '../route';
import { SendBatchBody, SendBatchOut, SendBatchShape, SendBody, SEND_BODY_LIMIT } from '../schemas/send';
import { sendEmails } from '../../services/send';
import { DomainError } from '../../lib/domainErrors';
import { ApiError, fromDomainError } from '../errors';
import { fieldErrors, safeParse } from '../validation';
import { requestLanguage } from '../language';
import type { AppContext } from '../context';

type ItemResult = z.input<typeof SendBatchOut>['data']['results'][number];

/** One item's failure as the batch lists it: the code and message /v1/send would have answered. */
function itemError(ctx: AppContext, err: unknown, index: number): ItemResult {
  const answer = err instanceof DomainError ? fromDomainError(err) : err;
  if (answer instanceof ApiError && answer.status < 500) {
    const { errors, details } = answer.extra;
    const all = { ...(details ?? {}), ...(errors ? { errors } : {}) };
    return { error: { code: answer.code, message: answer.message, ...(Object.keys(all).length ? { details: all } : {}) } };
  }
  // Committed items before it stay committed (the key holds the whole answer): this item alone failed.
  ctx.deps.log.error({ err, index }, 'batch item failed');
  return { error: { code: 'INTERNAL_SERVER_ERROR', message: 'This email could not be sent; send it again with a new Idempotency-Key' } };
}

export default [
  route({
    method: 'post',
    path: '/v1/send/batch',
    auth: 'secret',
    scope: 'send',
    tag: 'send',
    summary: 'Send up to 100 emails in one request, each a /v1/send body; every item succeeds or fails on its own',
    body: SendBatchBody,
    bodyFor: () => SendBatchShape as unknown as typeof SendBatchBody,
    bodyLimit: SEND_BODY_LIMIT,
    idempotent: 'replay',
    responses: {
      200: { description: 'one result per item, in order', schema: SendBatchOut },
      409: { description: 'Idempotency-Key used by another request, or the first is still running' },
    },
    async handler(ctx, { body, project }) {
      const results: ItemResult[] = [];
      // Each item's field sentences in the request's language, as the router's own are.
      const lang = requestLanguage(ctx);
      // One item after another, through the very function /v1/send calls: their rows join the
      // same delivery batches (services/deliveryBatcher.ts) as they commit.
      for (const [index, raw] of (body.emails as unknown[]).entries()) {
        const parsed = safeParse(SendBody, raw, lang);
        if (!parsed.success) {
          ctx.vary('Accept-Language');
          results.push({ error: { code: 'VALIDATION_ERROR', message: 'Request validation failed', details: { errors: fieldErrors(parsed.error, lang) } } });
          continue;
        }
        try {
          results.push({ emails: await sendEmails(ctx.deps, project.id, parsed.data) });
        } catch (err) {
          results.push(itemError(ctx, err, index));
        }
      }
      return { success: true, data: { results, timestamp: new Date().toISOString() } };
    },
  }),
];
