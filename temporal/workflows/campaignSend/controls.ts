import { ApplicationFailure, condition, setCurrentDetails, setHandler } from '@temporalio/workflow';
import { campaignStateQuery, pauseCampaignUpdate, resumeCampaignUpdate } from '../../contract';
import type { CampaignSendInput, CampaignState } from '../../contract';
import { setCampaignPaused } from './activities';

/**
 * Pause and resume (Temporal Updates, validated against the workflow's own state), the `state`
 * query and the current details line. A pause stops new batches from being handed out at once and
 * writes PAUSED to the campaign row; batches already in flight finish (one that finds the row
 * PAUSED before its claim hands nothing over and is run again after the resume). Status writes are
 * chained, so the row ends in the state last asked for, and no batch starts while one is pending.
 */
export function campaignControls(input: CampaignSendInput) {
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
    const phase = { test: ' · A/B test group', rest: ' · A/B winner to the rest', waiting: '' }[state.abTest?.phase ?? 'waiting'];
    const sending = () =>
      state.abTest?.phase === 'waiting'
        ? `A/B test · waiting for winner until ${state.abTest.winnerAt} · ${progress}`
        : `Sending${phase} · ${progress} · ${pace ?? lanes}${throttle ? ` · ${throttle}` : ''}`;
    const lines: Record<CampaignState['status'], () => string> = {
      SCHEDULED: () => `Scheduled for ${input.scheduledFor}`,
      STARTING: () => 'Starting · taking the audience snapshot',
      PAUSED: () => `Paused since ${state.pausedSince} · ${progress}${state.lanes ? ` · ${lanes} finishing` : ''}`,
      SENDING: sending,
      SENT: () => `Sent · ${progress}`,
      CANCELLED: () => `Cancelled · ${progress}`,
    };
    const line = lines[state.status]();
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
        if (state.status !== 'SENDING')
          throw new Error(`only a sending campaign can be paused; this one is ${state.status === 'STARTING' ? 'still starting' : state.status}`);
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

export type Controls = ReturnType<typeof campaignControls>;
