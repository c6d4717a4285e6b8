import { Context } from '@temporalio/activity';

import type { HandOverActivity } from '../services/handOver';

/**
 * What the activities that hand mail to a provider share (campaign batches, /v1/send batches,
 * single deliveries): the hand-over itself is services/handOver.ts; this is its activity side.
 */

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
