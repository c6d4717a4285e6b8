import { condition, continueAsNew, defineSignal, proxyActivities, setCurrentDetails, setHandler } from '@temporalio/workflow';
import type { scheduledSendActivities } from '../../../activities/scheduledSends';
import { SCHEDULED_WAKE_SIGNAL, type ScheduledSendInput } from '../../contract';

const { handOverScheduled } = proxyActivities<ReturnType<typeof scheduledSendActivities>>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

const wake = defineSignal(SCHEDULED_WAKE_SIGNAL);

const MINUTE_MS = 60_000;
/** Rounds per run before continueAsNew keeps the history short (a minute has at most a few dozen). */
const ROUNDS_PER_RUN = 500;

/**
 * A project's scheduled sends of one minute: one run per minute, however many emails it holds, so
 * 100,000 scheduled emails cost a run per minute that has any, not a start per email. It sleeps
 * (a durable timer, so restarts lose nothing) until the next email of the minute is due, hands
 * every due one over (the activity moves them SCHEDULED → QUEUED into a /v1/send batch), and ends
 * after a last round once the minute is over. A wake signal (an email scheduled or rescheduled into
 * the minute) makes it look again at once. Its history holds ids and counts only.
 */
export async function scheduledSend(input: ScheduledSendInput) {
  let woken = false;
  setHandler(wake, () => {
    woken = true;
  });
  const end = input.minute + MINUTE_MS;
  let handedOver = 0;
  for (let round = 0; round < ROUNDS_PER_RUN; round++) {
    woken = false;
    const r = await handOverScheduled(input);
    handedOver += r.handedOver;
    setCurrentDetails(`${handedOver} handed over`);
    // Done once the minute is over and its last round found nothing left; a wake that came during
    // the round may be for a row that round did not see yet, so it gets one more.
    if (r.nextDueAt === null && Date.now() >= end && !woken) return { handedOver };
    const target = r.nextDueAt ?? end;
    await condition(() => woken, Math.max(10, target - Date.now()));
  }
  return continueAsNew<typeof scheduledSend>(input);
}
