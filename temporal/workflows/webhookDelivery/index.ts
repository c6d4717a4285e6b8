import { condition, continueAsNew, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../../../activities';
import { WEBHOOK_WAKE_SIGNAL, WebhookDeliveryInput } from '../../webhooks';

const { deliverWebhookRound } = proxyActivities<Activities>({
  // A round is at most 200 messages at the endpoint's rate, 16 in flight, 10 s each at worst.
  startToCloseTimeout: '10 minutes',
  // A worker that dies mid-round is noticed quickly; the retry sends what was not recorded again
  // (same webhook-id, so receivers can drop the repeat).
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

const wake = defineSignal(WEBHOOK_WAKE_SIGNAL);

/** Rounds per run before continueAsNew keeps the history short. */
const ROUNDS_PER_RUN = 200;
/** With nothing pending for this long the run ends; the next message starts it again. */
const IDLE_MS = 60 * 60 * 1000;

/**
 * One long-lived workflow per endpoint (`webhook-<endpointId>`), woken by a signal when messages
 * are queued: it drains the endpoint's queue round by round, sleeps until the next retry is due,
 * and ends when the endpoint is deleted or disabled, or after an idle hour. Its history holds
 * endpoint ids and counts only: the messages stay in Postgres.
 */
export async function webhookDelivery(input: WebhookDeliveryInput) {
  let woken = false;
  setHandler(wake, () => {
    woken = true;
  });
  const totals = { delivered: 0, failed: 0 };
  for (let round = 0; round < ROUNDS_PER_RUN; round++) {
    woken = false;
    const r = await deliverWebhookRound(input.endpointId);
    totals.delivered += r.delivered;
    totals.failed += r.failed;
    if (r.stop) return { ...totals, stopped: r.stop };
    if (r.more) continue;
    const signalled = await condition(() => woken, Math.max(10, r.nextDueInMs ?? IDLE_MS));
    if (!signalled && r.nextDueInMs === null) return { ...totals, stopped: 'idle' };
  }
  return continueAsNew<typeof webhookDelivery>(input);
}
