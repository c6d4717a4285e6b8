import { ActivityCancellationType, CancellationScope, continueAsNew, isCancellation, proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { CampaignSendInput } from '../../activities/campaigns';

// The audience snapshot is one statement (no heartbeat), so its timeout allows for large audiences.
const { beginCampaignSend, finishCampaignSend, markCampaignCancelled } = proxyActivities<Activities>({
  startToCloseTimeout: '30 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

const { sendCampaignBatch } = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  // A worker that dies mid-batch is noticed within a minute; the retry resumes from the rows' states.
  heartbeatTimeout: '1 minute',
  // A cancel lets the batch in flight settle its hand-over before the workflow closes as cancelled.
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  // Long enough to ride out a provider outage of a few hours; after that the run fails and the
  // maintenance sweep starts the campaign again from its first recipient (sent ones are skipped).
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '2 minutes', maximumAttempts: 150 },
});

/** Timers are slept in pieces so any far-away schedule stays within what a single timer may hold. */
const LONGEST_TIMER_MS = 30 * 24 * 3600 * 1000;

async function sleepUntil(at: number): Promise<void> {
  for (let left = at - Date.now(); left > 0; left = at - Date.now()) await sleep(Math.min(left, LONGEST_TIMER_MS));
}

export interface CampaignSendResult {
  status: string;
  /** Recipients handed over and failed by this run. */
  handedOver: number;
  failed: number;
}

/**
 * One campaign (workflow id `campaign-<id>`, DESIGN §3): sleeps until `scheduledFor`, starts
 * sending (audience snapshot, totalRecipients), hands the audience over batch by batch, and ends
 * SENT after the last batch. Cancelling the workflow (POST /campaigns/:id/cancel) stops it between
 * batches; what was handed over stays sent. Every `batchesPerRun` batches it continues as new
 * with the cursor, so the history stays small for any audience size.
 */
export async function campaignSend(input: CampaignSendInput): Promise<CampaignSendResult> {
  const { campaignId, projectId, batchSize } = input;
  let cursor = input.cursor ?? '';
  const totals = { handedOver: 0, failed: 0 };
  try {
    if (input.cursor === undefined) {
      if (input.scheduledFor) await sleepUntil(Date.parse(input.scheduledFor));
      const begun = await beginCampaignSend(campaignId);
      if (begun.status !== 'SENDING') return { status: begun.status, ...totals };
    }
    for (let batch = 0; batch < input.batchesPerRun; batch++) {
      const r = await sendCampaignBatch({ campaignId, after: cursor, batchSize });
      totals.handedOver += r.handedOver;
      totals.failed += r.failed;
      cursor = r.cursor;
      if (r.stopped) return { status: r.stopped, ...totals };
      if (r.done) return { status: (await finishCampaignSend(campaignId)) ?? 'DELETED', ...totals };
    }
  } catch (err) {
    if (isCancellation(err)) await CancellationScope.nonCancellable(() => markCampaignCancelled({ campaignId, projectId }));
    throw err;
  }
  return continueAsNew<typeof campaignSend>({ ...input, cursor });
}
