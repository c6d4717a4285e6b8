import { CancellationScope, CancelledFailure, continueAsNew, isCancellation, patched } from '@temporalio/workflow';
import type { CampaignSendInput } from '../../contract';
import { beginCampaignSend, finishCampaignSend, markCampaignCancelled, sendCampaignBatch, startCampaignAbTest } from './activities';
import { campaignControls } from './controls';
import { chooseWinner, sendDeferred, sendLanesPass, sendPacedPass, sleepUntil } from './passes';
import { AB_TEST_PATCH, BATCH_LANES_PATCH, CANCELLED_ROW_PATCH, DEFERRED_PASS_PATCH, SEND_RATE_PATCH } from './patches';

export interface CampaignSendResult {
  status: string;
  /** Recipients handed over and failed by this run. */
  handedOver: number;
  failed: number;
}

/**
 * One campaign (workflow id `campaign-<id>`, docs/campaigns.md): sleeps until `scheduledFor`, starts
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
  const controls = campaignControls(input);
  const ended = (status: string) => {
    if (status === 'SENT' || status === 'CANCELLED') controls.set(status);
    return { status, ...totals };
  };
  /** Set once the cancelled campaign's leftover rows were settled, so the cancel path does not repeat it. */
  let settledCancel = false;
  /**
   * A batch found the row no longer SENDING. The API's cancel writes CANCELLED to the row before it
   * cancels the workflow, so a batch in flight can see it first: the rows an attempt left are
   * settled as a Temporal cancel settles them, and once that cancel has reached the workflow it
   * closes as cancelled rather than completed.
   */
  const stoppedBy = async (status: string) => {
    if (status !== 'CANCELLED' || !patched(CANCELLED_ROW_PATCH)) return ended(status);
    controls.set('CANCELLED');
    await CancellationScope.nonCancellable(() => markCampaignCancelled({ campaignId, projectId }));
    settledCancel = true;
    if (CancellationScope.current().consideredCancelled) throw new CancelledFailure('campaign cancelled');
    return ended(status);
  };
  try {
    if (input.cursor === undefined) {
      if (input.scheduledFor) await sleepUntil(Date.parse(input.scheduledFor));
      controls.set('STARTING');
      const begun = await beginCampaignSend(campaignId);
      controls.state.totalRecipients = begun.totalRecipients;
      if (begun.status === 'PAUSED') controls.pausedByRow();
      else if (begun.status !== 'SENDING') return ended(begun.status);
      else controls.set('SENDING');
      if (begun.sendRatePerMinute) input = { ...input, sendRatePerMinute: begun.sendRatePerMinute };
      if (begun.abTest && patched(AB_TEST_PATCH)) {
        const ab = await startCampaignAbTest(campaignId);
        // A run the sweep starts again after the choice goes straight to the rest.
        if (ab) {
          input = { ...input, abTest: ab.winner === null ? 'test' : 'rest' };
          controls.abTest(input.abTest!, null);
        }
      }
    }
    if (patched(BATCH_LANES_PATCH)) {
      const rate = input.sendRatePerMinute;
      const pass =
        rate && patched(SEND_RATE_PATCH) ? await sendPacedPass(input, rate, cursor, totals, controls) : await sendLanesPass(input, cursor, totals, controls);
      if (pass.stopped) return await stoppedBy(pass.stopped);
      // A pause that came during the last batches holds the finish (or the hand-over to the next run) until resumed.
      await controls.whilePaused();
      if (!pass.more) {
        // The test group is out: the rest waits for the winner, then a run of its own hands it over from the first recipient.
        if (input.abTest === 'test' && patched(AB_TEST_PATCH)) {
          await chooseWinner(input, controls);
          await controls.whilePaused();
          return continueAsNew<typeof campaignSend>({ ...input, cursor: '', abTest: 'rest', progress: controls.progress() });
        }
        if (patched(DEFERRED_PASS_PATCH)) {
          const stoppedLater = await sendDeferred(input, totals, controls);
          if (stoppedLater) return await stoppedBy(stoppedLater);
        }
        return ended((await finishCampaignSend(campaignId)) ?? 'DELETED');
      }
      cursor = pass.cursor;
      return continueAsNew<typeof campaignSend>({ ...input, cursor, progress: controls.progress() });
    }
    // Runs started before BATCH_LANES_PATCH.
    for (let batch = 0; batch < input.batchesPerRun; batch++) {
      const r = await sendCampaignBatch({ campaignId, after: cursor, batchSize });
      totals.handedOver += r.handedOver;
      totals.failed += r.failed;
      controls.state.handedOver += r.handedOver;
      cursor = r.cursor;
      if (r.stopped) return { status: r.stopped, ...totals };
      if (r.done) return { status: (await finishCampaignSend(campaignId)) ?? 'DELETED', ...totals };
    }
  } catch (err) {
    if (isCancellation(err) && !settledCancel) {
      controls.set('CANCELLED');
      await CancellationScope.nonCancellable(() => markCampaignCancelled({ campaignId, projectId }));
    }
    throw err;
  }
  return continueAsNew<typeof campaignSend>({ ...input, cursor, progress: controls.progress() });
}
