import { patched, sleep } from '@temporalio/workflow';
import type { CampaignSendInput } from '../../contract';
import {
  campaignAbTestWinnerDue,
  chooseCampaignAbTestWinner,
  clearCampaignDeferrals,
  nextCampaignDeferral,
  planCampaignBatches,
  sendCampaignBatch,
} from './activities';
import type { Controls } from './controls';
import { EVEN_PACE_PATCH } from './patches';

/** Timers are slept in pieces so any far-away schedule stays within what a single timer may hold. */
const LONGEST_TIMER_MS = 30 * 24 * 3600 * 1000;

export async function sleepUntil(at: number): Promise<void> {
  for (let left = at - Date.now(); left > 0; left = at - Date.now()) await sleep(Math.min(left, LONGEST_TIMER_MS));
}

export type Totals = { handedOver: number; failed: number };

/** Counts a batch's result into the run's totals and the operator's view. */
function count(r: Totals & { pacing?: { ratePerSecond: number; waitedMs: number } }, totals: Totals, controls: Controls): void {
  controls.throttled(r.pacing);
  totals.handedOver += r.handedOver;
  totals.failed += r.failed;
  controls.state.handedOver += r.handedOver;
  controls.state.failed += r.failed;
  controls.show();
}

/**
 * One batch, held while the campaign is paused: a batch that found the row PAUSED handed nothing
 * over and is sent again after the resume. Returns the batch's result once it was not paused.
 */
export async function sendHeld(batch: Parameters<typeof sendCampaignBatch>[0], totals: Totals, controls: Controls) {
  for (;;) {
    await controls.whilePaused();
    const r = await sendCampaignBatch(batch);
    count(r, totals, controls);
    if (r.stopped !== 'PAUSED') return r;
  }
}

/**
 * Sends the planned batches with at most `lanes` in flight. A batch that reports the campaign
 * stopped, or fails, stops new ones from starting; those in flight are always awaited (a cancel
 * lets each settle its hand-over), then the first failure is rethrown. While paused no lane takes
 * a batch; a batch that found the campaign PAUSED is taken again after the resume.
 */
async function sendInLanes(
  batch: { campaignId: string; batchSize: number },
  from: string,
  bounds: string[],
  lanes: number,
  totals: { handedOver: number; failed: number },
  controls: Controls,
): Promise<string | undefined> {
  let next = 0;
  const again: number[] = [];
  let stopped: string | undefined;
  let failure: { error: unknown } | undefined;
  const lane = async () => {
    while ((again.length || next < bounds.length) && !stopped && !failure) {
      await controls.whilePaused();
      if (!again.length && next >= bounds.length) break;
      const i = again.length ? again.shift()! : next++;
      controls.state.lanes++;
      controls.show();
      try {
        const r = await sendCampaignBatch({ ...batch, after: i === 0 ? from : bounds[i - 1], until: bounds[i] });
        count(r, totals, controls);
        if (r.stopped === 'PAUSED') again.push(i);
        else stopped ??= r.stopped;
      } catch (error) {
        failure ??= { error };
      } finally {
        controls.state.lanes--;
        controls.show();
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
export async function sendDeferred(input: CampaignSendInput, totals: Totals, controls: Controls): Promise<string | undefined> {
  const scale = input.timeScale ?? 1;
  for (;;) {
    const next = await nextCampaignDeferral(input.campaignId);
    if (!next) return undefined;
    const wait = (Date.parse(next.dueAt) - next.now) * scale;
    if (wait > 0) await sleepUntil(Date.now() + wait);
    let after = '';
    for (;;) {
      const r = await sendHeld({ campaignId: input.campaignId, after, batchSize: input.batchSize, deferredUpTo: next.dueAt }, totals, controls);
      if (r.stopped) return r.stopped;
      if (r.done) break;
      after = r.cursor;
    }
    await clearCampaignDeferrals({ campaignId: input.campaignId, upTo: next.dueAt });
  }
}

export interface Pass {
  stopped?: string;
  /** Recipients remain after this run's batches. */
  more: boolean;
  /** Where the next run starts. */
  cursor: string;
}

export async function sendLanesPass(input: CampaignSendInput, cursor: string, totals: Totals, controls: Controls): Promise<Pass> {
  const plan = await planCampaignBatches({ campaignId: input.campaignId, after: cursor, batchSize: input.batchSize, count: input.batchesPerRun });
  const stopped = await sendInLanes(
    { campaignId: input.campaignId, batchSize: input.batchSize },
    cursor,
    plan.bounds,
    Math.max(1, input.batchLanes ?? 1),
    totals,
    controls,
  );
  return { stopped, more: plan.more, cursor: plan.bounds.length ? plan.bounds[plan.bounds.length - 1] : cursor };
}

/**
 * Paced hand-over: batches of at most `rate` recipients (a minute's worth), one at a time. Each batch
 * spreads its recipients evenly over its share of the minute (EVEN_PACE_PATCH); runs before that
 * marker hand a batch over at once and then wait (handed over / rate) minutes, durably. The current
 * details in the Temporal UI say the pace and progress.
 */
export async function sendPacedPass(input: CampaignSendInput, rate: number, cursor: string, totals: Totals, controls: Controls): Promise<Pass> {
  const batchSize = Math.min(input.batchSize, rate);
  const plan = await planCampaignBatches({ campaignId: input.campaignId, after: cursor, batchSize, count: input.batchesPerRun });
  const even = patched(EVEN_PACE_PATCH);
  let after = cursor;
  for (const until of plan.bounds) {
    controls.pace(`paced at ${rate} emails per minute, batches of ${batchSize}`);
    const r = await sendHeld({ campaignId: input.campaignId, after, until, batchSize, ...(even ? { ratePerMinute: rate } : {}) }, totals, controls);
    if (r.stopped) return { stopped: r.stopped, more: false, cursor: after };
    after = until;
    if (even) continue;
    const pause = (r.handedOver / rate) * 60_000 * (input.timeScale ?? 1);
    if (pause > 0) await sleep(pause);
  }
  return { more: plan.more, cursor: after };
}

/**
 * The A/B test's wait, once its test group is handed over: sleeps until the winner is due (fixed in
 * Postgres the first time, `winnerAfter` scaled like the other campaign waits), then has the winner
 * chosen and stored; the current details say until when meanwhile. A pause does not hold the choice.
 */
export async function chooseWinner(input: CampaignSendInput, controls: Controls): Promise<void> {
  const due = await campaignAbTestWinnerDue({ campaignId: input.campaignId, timeScale: input.timeScale });
  if (due) {
    controls.abTest('waiting', due.dueAt);
    const wait = Date.parse(due.dueAt) - due.now;
    if (wait > 0) await sleepUntil(Date.now() + wait);
  }
  await chooseCampaignAbTestWinner(input.campaignId);
  controls.abTest('rest', due?.dueAt ?? null);
}
