import type { ActivityDeps } from './deps';
import { releaseDueScheduled } from '../db/emailStates';
import { nextScheduledAt, stalledScheduledBatches } from '../db/scheduledSends';
import { startDeliveryBatch } from '../services/deliveryBatcher';
import { deliverEmailBatchWorkflowId } from '../temporal/workflowIds';
import type { ScheduledRoundResult, ScheduledSendInput } from '../temporal/contract';
import { uuid } from '../lib/ids';

const MINUTE_MS = 60_000;
/** Emails per /v1/send batch, as the batcher closes them (services/deliveryBatcher.ts). */
const BATCH = 100;
/** Due this close to now counts as due: the timer that woke the round may fire a hair early. */
const EARLY_MS = 250;
/** A released batch still QUEUED this long was not started (the round died after its release). */
const STALLED_SECONDS = 30;

export function scheduledSendActivities(deps: ActivityDeps) {
  const { knex } = deps;
  return {
    /**
     * One round of a minute's scheduled sends: every due SCHEDULED email of the project (this
     * minute's and any overdue earlier one's) goes to the one hand-over /v1/send uses, a
     * `deliverEmailBatch` of up to 100 emails: released SCHEDULED → QUEUED naming the batch, then
     * the batch started. A retry is harmless: released rows are no longer SCHEDULED, and a batch
     * whose start a crash cut off is started again under the id its rows name.
     */
    async handOverScheduled({ projectId, minute }: ScheduledSendInput): Promise<ScheduledRoundResult> {
      for (const b of await stalledScheduledBatches(knex, projectId, STALLED_SECONDS)) {
        await startDeliveryBatch(deps.temporal, { ...b, projectId, source: 'scheduled send (restarted)' });
      }
      const end = new Date(minute + MINUTE_MS);
      const until = new Date(Math.min(Date.now() + EARLY_MS, end.getTime() - 1));
      let handedOver = 0;
      for (;;) {
        const workflowId = deliverEmailBatchWorkflowId(uuid());
        const emailIds = await releaseDueScheduled(knex, projectId, until, workflowId, BATCH);
        if (!emailIds.length) break;
        await startDeliveryBatch(deps.temporal, { workflowId, projectId, emailIds, source: 'scheduled send' });
        handedOver += emailIds.length;
        if (emailIds.length < BATCH) break;
      }
      const next = await nextScheduledAt(knex, projectId, end);
      return { handedOver, nextDueAt: next ? next.getTime() : null };
    },
  };
}
