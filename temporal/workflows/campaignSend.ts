import {
  ActivityCancellationType,
  ApplicationFailure,
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  sleep,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { campaignStateQuery, pauseCampaignUpdate, resumeCampaignUpdate } from '../contract';
import type { CampaignSendInput, CampaignState } from '../contract';

// The audience snapshot is one statement (no heartbeat), so its timeout allows for large audiences;
// so is the A/B test group's pick over it.
const { beginCampaignSend, finishCampaignSend, markCampaignCancelled, startCampaignAbTest, campaignAbTestWinnerDue, chooseCampaignAbTestWinner } = proxyActivities<Activities>({
  startToCloseTimeout: '30 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

const { planCampaignBatches, nextCampaignDeferral, clearCampaignDeferrals } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

// A pause or resume answers the API once this write is done; it is one UPDATE.
const { setCampaignPaused } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds' },
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

/**
 * Runs after this marker pass `sendRatePerMinute` to each paced batch, which spreads its recipients
 * evenly over its share of the minute (services/sendThrottle.ts evenPace), and no longer sleep after
 * it. Runs before it handed each batch over at once (a minute's worth in the same second) and slept
 * (handed over / rate) minutes afterwards.
 */
const EVEN_PACE_PATCH = 'campaign-send-rate-even';

/**
 * Runs after this marker of a campaign with an A/B subject test pick the test group, hand it over,
 * wait `winnerAfter`, choose the winner and then hand over the rest. Asked only on that path, so
 * campaigns without a test issue the same commands as before it existed.
 */
const AB_TEST_PATCH = 'campaign-ab-test';

/** Timers are slept in pieces so any far-away schedule stays within what a single timer may hold. */
const LONGEST_TIMER_MS = 30 * 24 * 3600 * 1000;

async function sleepUntil(at: number): Promise<void> {
  for (let left = at - Date.now(); left > 0; left = at - Date.now()) await sleep(Math.min(left, LONGEST_TIMER_MS));
}

/**
 * Pause and resume (Temporal Updates, validated against the workflow's own state), the `state`
 * query and the current details line. A pause stops new batches from being handed out at once and
 * writes PAUSED to the campaign row; batches already in flight finish (one that finds the row
 * PAUSED before its claim hands nothing over and is run again after the resume). Status writes are
 * chained, so the row ends in the state last asked for, and no batch starts while one is pending.
 */
function campaignControls(input: CampaignSendInput) {
  const state: CampaignState = {
    status: input.cursor === undefined ? (input.scheduledFor ? 'SCHEDULED' : 'STARTING') : 'SENDING',
    totalRecipients: input.progress?.totalRecipients ?? null,
    handedOver: input.progress?.handedOver ?? 0,
    failed: input.progress?.failed ?? 0,
    lanes: 0,
    paused: false,
    pausedSince: null,
    // Only with a test: the state of a campaign without one keeps its shape.
    ...(input.abTest ? { abTest: { phase: input.abTest, winnerAt: null } } : {}),
  };
  /** The pace of a campaign with `sendRatePerMinute`, shown while it sends. */
  let pace: string | null = null;
  /** The project's send throttle as the last batch met it (display only: no command depends on it). */
  let throttle: string | null = null;
  let pendingWrites = 0;
  let writes: Promise<unknown> = Promise.resolve();
  const count = (n: number | null) => (n === null ? '?' : n.toLocaleString('en-US'));
  const show = () => {
    const progress = `${count(state.handedOver)} of ${count(state.totalRecipients)} handed over`;
    const lanes = `${state.lanes} ${state.lanes === 1 ? 'lane' : 'lanes'}`;
    const ab = state.abTest?.phase === 'test' ? ' · A/B test group' : state.abTest?.phase === 'rest' ? ' · A/B winner to the rest' : '';
    const line =
      state.status === 'SCHEDULED'
        ? `Scheduled for ${input.scheduledFor}`
        : state.status === 'STARTING'
          ? 'Starting · taking the audience snapshot'
          : state.status === 'PAUSED'
            ? `Paused since ${state.pausedSince} · ${progress}${state.lanes ? ` · ${lanes} finishing` : ''}`
            : state.status === 'SENDING'
              ? state.abTest?.phase === 'waiting'
                ? `A/B test · waiting for winner until ${state.abTest.winnerAt} · ${progress}`
                : `Sending${ab} · ${progress} · ${pace ?? lanes}${throttle ? ` · ${throttle}` : ''}`
              : `${state.status === 'SENT' ? 'Sent' : 'Cancelled'} · ${progress}`;
    setCurrentDetails(state.failed ? `${line} · ${count(state.failed)} failed` : line);
  };
  const write = (paused: boolean): Promise<string | null> => {
    pendingWrites++;
    const done = writes.then(() => setCampaignPaused({ campaignId: input.campaignId, paused }));
    writes = done.catch(() => undefined);
    return done.finally(() => {
      pendingWrites--;
      show();
    });
  };
  const pause = () => {
    state.paused = true;
    state.status = 'PAUSED';
    state.pausedSince = new Date(Date.now()).toISOString();
    show();
  };
  /** The row moved on meanwhile (a cancel, the last batch's finish): the update fails with its status. */
  const settle = async (paused: boolean) => {
    const status = await write(paused);
    if (status !== (paused ? 'PAUSED' : 'SENDING')) throw ApplicationFailure.nonRetryable(`the campaign is ${status ?? 'deleted'}`, 'CampaignStatusChanged');
    return state;
  };
  setHandler(campaignStateQuery, () => state);
  setHandler(
    pauseCampaignUpdate,
    async () => {
      pause();
      return settle(true);
    },
    {
      validator: () => {
        if (state.status !== 'SENDING') throw new Error(`only a sending campaign can be paused; this one is ${state.status === 'STARTING' ? 'still starting' : state.status}`);
      },
    },
  );
  setHandler(
    resumeCampaignUpdate,
    async () => {
      state.paused = false;
      state.status = 'SENDING';
      state.pausedSince = null;
      show();
      return settle(false);
    },
    {
      validator: () => {
        if (state.status !== 'PAUSED') throw new Error(`only a paused campaign can be resumed; this one is ${state.status}`);
      },
    },
  );
  show();
  const open = () => !state.paused && pendingWrites === 0;
  return {
    state,
    show,
    set(status: CampaignState['status']) {
      state.status = status;
      show();
    },
    pace(text: string) {
      pace = text;
      show();
    },
    /** What the last batch reported of the project's send throttle. */
    throttled(pacing: { ratePerSecond: number; waitedMs: number } | undefined) {
      if (!pacing) return;
      const waited = pacing.waitedMs >= 100 ? `, last batch waited ${(pacing.waitedMs / 1000).toFixed(1)} s for it` : '';
      throttle = `project send rate ${pacing.ratePerSecond}/s${waited}`;
    },
    abTest(phase: NonNullable<CampaignState['abTest']>['phase'], winnerAt: string | null) {
      state.abTest = { phase, winnerAt };
      show();
    },
    /** A run restarted (by the sweep) while its campaign row says PAUSED stays paused. */
    pausedByRow: pause,
    /** Waits out a pause (no-op, and no await, when none is in effect: runs before pauses existed must replay alike). */
    async whilePaused(): Promise<void> {
      if (!open()) await condition(open);
    },
    progress: () => ({ totalRecipients: state.totalRecipients ?? 0, handedOver: state.handedOver, failed: state.failed }),
  };
}

type Controls = ReturnType<typeof campaignControls>;
type Totals = { handedOver: number; failed: number };

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
async function sendHeld(batch: Parameters<typeof sendCampaignBatch>[0], totals: Totals, controls: Controls) {
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
async function sendDeferred(input: CampaignSendInput, totals: Totals, controls: Controls): Promise<string | undefined> {
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

interface Pass {
  stopped?: string;
  /** Recipients remain after this run's batches. */
  more: boolean;
  /** Where the next run starts. */
  cursor: string;
}

async function sendLanesPass(input: CampaignSendInput, cursor: string, totals: Totals, controls: Controls): Promise<Pass> {
  const plan = await planCampaignBatches({ campaignId: input.campaignId, after: cursor, batchSize: input.batchSize, count: input.batchesPerRun });
  const stopped = await sendInLanes({ campaignId: input.campaignId, batchSize: input.batchSize }, cursor, plan.bounds, Math.max(1, input.batchLanes ?? 1), totals, controls);
  return { stopped, more: plan.more, cursor: plan.bounds.length ? plan.bounds[plan.bounds.length - 1] : cursor };
}

/**
 * Paced hand-over: batches of at most `rate` recipients (a minute's worth), one at a time. Each batch
 * spreads its recipients evenly over its share of the minute (EVEN_PACE_PATCH); runs before that
 * marker hand a batch over at once and then wait (handed over / rate) minutes, durably. The current
 * details in the Temporal UI say the pace and progress.
 */
async function sendPacedPass(input: CampaignSendInput, rate: number, cursor: string, totals: Totals, controls: Controls): Promise<Pass> {
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
async function chooseWinner(input: CampaignSendInput, controls: Controls): Promise<void> {
  const due = await campaignAbTestWinnerDue({ campaignId: input.campaignId, timeScale: input.timeScale });
  if (due) {
    controls.abTest('waiting', due.dueAt);
    const wait = Date.parse(due.dueAt) - due.now;
    if (wait > 0) await sleepUntil(Date.now() + wait);
  }
  await chooseCampaignAbTestWinner(input.campaignId);
  controls.abTest('rest', due?.dueAt ?? null);
}

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
      const pass = rate && patched(SEND_RATE_PATCH) ? await sendPacedPass(input, rate, cursor, totals, controls) : await sendLanesPass(input, cursor, totals, controls);
      if (pass.stopped) return ended(pass.stopped);
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
          if (stoppedLater) return ended(stoppedLater);
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
    if (isCancellation(err)) {
      controls.set('CANCELLED');
      await CancellationScope.nonCancellable(() => markCampaignCancelled({ campaignId, projectId }));
    }
    throw err;
  }
  return continueAsNew<typeof campaignSend>({ ...input, cursor, progress: controls.progress() });
}
