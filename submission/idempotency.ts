import type { Knex } from 'knex';
import { claimIdempotencyKey, completeIdempotencyKey, isValidIdempotencyKey, releaseIdempotencyKey } from '../db/idempotency';

/** How a submitted message's Message-ID is recorded among the project's idempotency keys. */
const REQUEST = { method: 'SMTP', path: 'DATA' } as const;

export type Once<T> = { sent: T } | { duplicate: 'accepted' | 'in_flight' };

/**
 * The Message-ID as the Idempotency-Key of POST /v1/send (db/idempotency.ts, IDEMPOTENCY_TTL_HOURS):
 * a client that lost our 250 resends the same message, and must not send it twice. Unlike the API's
 * 409, the retry is answered 250 again (SMTP clients retry until they get one), with nothing sent.
 * A message without a usable Message-ID is simply sent. An outage frees the key for the retry, as
 * a 5xx does for the API.
 */
export async function oncePerMessageId<T>(
  knex: Knex,
  projectId: string,
  messageId: string | undefined,
  ttlHours: number,
  send: () => Promise<T>,
): Promise<Once<T>> {
  if (!messageId || !isValidIdempotencyKey(messageId)) return { sent: await send() };
  const holder = await claimIdempotencyKey(knex, projectId, messageId, REQUEST, ttlHours);
  // Only an accepted message (or an API request under the same key) keeps it: refusals release it below.
  if (holder) return { duplicate: holder.status_code === null ? 'in_flight' : 'accepted' };
  try {
    const sent = await send();
    await completeIdempotencyKey(knex, projectId, messageId, 250);
    return { sent };
  } catch (err) {
    // Nothing was committed (sendEmails commits all recipients or none): the client may send this message again.
    await releaseIdempotencyKey(knex, projectId, messageId).catch(() => undefined);
    throw err;
  }
}
