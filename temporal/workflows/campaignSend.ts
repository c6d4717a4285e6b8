import { ActivityCancellationType, CancellationScope, continueAsNew, isCancellation, patched, proxyActivities, setCurrentDetails, sleep } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { CampaignSendInput } from '../contract';

// The audience snapshot is one statement (no heartbeat), so its timeout allows for large audiences.
const { beginCampaignSend, finishCampaignSend, markCampaignCancelled } = proxyActivities<Activities>({
  startToCloseTimeout: '30 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

const { planCampaignBatches, nextCampaignDeferral, clearCampaignDeferrals } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
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

/**
 * Runs before this marker page one batch at a time, each batch finding where the next starts;
 * runs after it plan their batches' bounds first and keep `batchLanes` of them in flight.
 */
const BATCH_LANES_PATCH = 'campaign-batch-lanes';

/**
 * Runs before this marker end after the audience pass; runs after it then hand over the recipients
 * the delivery controls deferred (quiet hours, each recipient's local time), each group when due.
 */
const DEFERRED_PASS_PATCH = 'campaign-deferred-recipients';

/** Runs after this marker with a `sendRatePerMinute` send one batch at a time and wait between batches. */
const SEND_RATE_PATCH = 'campaign-send-rate';

/** Timers are slept in pieces so any far-away schedule stays within what a single timer may hold. */
const LONGEST_TIMER_MS = 30 * 24 * 3600 * 1000;

async function sleepUntil(at: number): Promise<void> {
  for (let left = at - Date.now(); left > 0; left = at - Date.now()) await sleep(Math.min(left, LONGEST_TIMER_MS));
}

/**
 * Sends the planned batches with at most `lanes` in flight. A batch that reports the campaign
 * stopped, or fails, stops new ones from starting; those in flight are always awaited (a cancel
 * lets each settle its hand-over), then the first failure is rethrown.
 */
async function sendInLanes(
  batch: { campaignId: string; batchSize: number },
  from: string,
  bounds: string[],
  lanes: number,
  totals: { handedOver: number; failed: number },
): Promise<string | undefined> {
  let next = 0;
  let stopped: string | undefined;
  let failure: { error: unknown } | undefined;
  const lane = async () => {
    while (next < bounds.length && !stopped && !failure) {
      const i = next++;
      try {
        const r = await sendCampaignBatch({ ...batch, after: i === 0 ? from : bounds[i - 1], until: bounds[i] });
        totals.handedOver += r.handedOver;
        totals.failed += r.failed;
        stopped ??= r.stopped;
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(lanes, bounds.length) }, lane));
  if (failure) throw failure.error;
  return stopped;
}

/**
 * The deferred recipients, earliest due first: sleeps until each group is due (durations scaled by
 * `timeScale` like workflow timers, so tests run a day in seconds), then pages through those due.
 * Returns why the campaign stopped, if it did.
 */
async function sendDeferred(input: CampaignSendInput, totals: { handedOver: number; failed: number }): Promise<string | undefined> {
  const scale = input.timeScale ?? 1;
  for (;;) {
    const next = await nextCampaignDeferral(input.campaignId);
    if (!next) return undefined;
    const wait = (Date.parse(next.dueAt) - next.now) * scale;
    if (wait > 0) await sleepUntil(Date.now() + wait);
    let after = '';
    for (;;) {
      const r = await sendCampaignBatch({ campaignId: input.campaignId, after, batchSize: input.batchSize, deferredUpTo: next.dueAt });
      totals.handedOver += r.handedOver;
      totals.failed += r.failed;
      if (r.stopped) return r.stopped;
      if (r.done) break;
      after = r.cursor;
    }
    await clearCampaignDeferrals({ campaignId: input.campaignId, upTo: next.dueAt });
  }
}

interface Pass {
  stopped?: string;
  /** Recipients remain after this run's batches. */
  more: boolean;
  /** Where the next run starts. */
  cursor: string;
}

async function sendLanesPass(input: CampaignSendInput, cursor: string, totals: { handedOver: number; failed: number }): Promise<Pass> {
  const plan = await planCampaignBatches({ campaignId: input.campaignId, after: cursor, batchSize: input.batchSize, count: input.batchesPerRun });
  const stopped = await sendInLanes({ campaignId: input.campaignId, batchSize: input.batchSize }, cursor, plan.bounds, Math.max(1, input.batchLanes ?? 1), totals);
  return { stopped, more: plan.more, cursor: plan.bounds.length ? plan.bounds[plan.bounds.length - 1] : cursor };
}

/**
 * Paced hand-over: batches of at most `rate` recipients, one at a time, each followed by a durable
 * wait of (handed over / rate) minutes, so no minute sees more than `rate`. The current details in
 * the Temporal UI say the pace and progress.
 */
async function sendPacedPass(input: CampaignSendInput, rate: number, cursor: string, totals: { handedOver: number; failed: number }): Promise<Pass> {
  const batchSize = Math.min(input.batchSize, rate);
  const plan = await planCampaignBatches({ campaignId: input.campaignId, after: cursor, batchSize, count: input.batchesPerRun });
  let after = cursor;
  for (const until of plan.bounds) {
    setCurrentDetails(`Paced at ${rate} emails per minute (batches of ${batchSize}); ${totals.handedOver} handed over by this run`);
    const r = await sendCampaignBatch({ campaignId: input.campaignId, after, until, batchSize });
    totals.handedOver += r.handedOver;
    totals.failed += r.failed;
    if (r.stopped) return { stopped: r.stopped, more: false, cursor: after };
    after = until;
    const pause = (r.handedOver / rate) * 60_000 * (input.timeScale ?? 1);
    if (pause > 0) await sleep(pause);
  }
  return { more: plan.more, cursor: after };
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
 * with the cursor, so the history stays small for any audience size. Each run plans its batches'
 * bounds up front and keeps `batchLanes` of them in flight.
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
      if (begun.sendRatePerMinute) input = { ...input, sendRatePerMinute: begun.sendRatePerMinute };
    }
    if (patched(BATCH_LANES_PATCH)) {
      const rate = input.sendRatePerMinute;
      const pass = rate && patched(SEND_RATE_PATCH) ? await sendPacedPass(input, rate, cursor, totals) : await sendLanesPass(input, cursor, totals);
      if (pass.stopped) return { status: pass.stopped, ...totals };
      if (!pass.more) {
        if (patched(DEFERRED_PASS_PATCH)) {
          const stoppedLater = await sendDeferred(input, totals);
          if (stoppedLater) return { status: stoppedLater, ...totals };
        }
        return { status: (await finishCampaignSend(campaignId)) ?? 'DELETED', ...totals };
      }
      cursor = pass.cursor;
      return continueAsNew<typeof campaignSend>({ ...input, cursor });
    }
    // Runs started before BATCH_LANES_PATCH.
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
