import { Context } from '@temporalio/activity';

/**
 * What the activities that hand mail to a provider share (campaign batches, /v1/send batches,
 * single deliveries).
 */

/** Why an email left SENDING by an attempt that died is failed rather than offered again. */
export const UNKNOWN_OUTCOME = 'delivery outcome unknown after an interrupted hand-over; not retried to avoid a duplicate';

const HEARTBEAT_EVERY_MS = 5_000;

/** Heartbeats `details` every few seconds while `work` runs (a provider call or a throttle wait may take a while). */
export async function heartbeating<T>(details: unknown, work: () => Promise<T>): Promise<T> {
  const ctx = Context.current();
  ctx.heartbeat(details);
  const timer = setInterval(() => ctx.heartbeat(details), HEARTBEAT_EVERY_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
