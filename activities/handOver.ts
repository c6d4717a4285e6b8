import { Context } from '@temporalio/activity';

import type { HandOverActivity } from '../services/handOver';

/**
 * What the activities that hand mail to a provider share (campaign batches, /v1/send batches,
 * single deliveries): the hand-over itself is services/handOver.ts; this is its activity side.
 */

const HEARTBEAT_EVERY_MS = 5_000;

/**
 * A heartbeat for a loop over recipients: at most one call into the SDK per `ms`. The SDK sends
 * heartbeats to the server at its own throttled pace anyway, but each call costs its pipeline work
 * (a profile of a 50,000-recipient campaign put one per recipient at 4 % of the worker's CPU).
 */
export function loopHeartbeat(details: unknown, ms = 200, clock: () => number = () => performance.now()): () => void {
  const ctx = Context.current();
  let last = -Infinity;
  return () => {
    const now = clock();
    if (now - last < ms) return;
    last = now;
    ctx.heartbeat(details);
  };
}

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

/** The running activity as services/handOver.ts sees it: its cancellation, and `progress.stage` heartbeated while work runs. */
export function handOverActivity(progress: { stage: string }): HandOverActivity {
  const ctx = Context.current();
  return {
    signal: ctx.cancellationSignal,
    during(stage, work) {
      progress.stage = stage;
      return heartbeating(progress, work);
    },
  };
}
