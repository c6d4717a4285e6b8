/**
 * The engine's contract with the layers around it: workflow inputs, the execution snapshot, the
 * progress mirror, the event payload, and the queries and updates operators and the API send to
 * running workflows, and the signals they receive. Besides types it holds only those definitions
 * (`defineQuery` and friends just name a handler; they touch no sandbox state), so services/ and
 * activities/ can import them without loading a workflow.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { CampaignConfig } from '../lib/config';
import type { DurationUnit } from './steps/types';

/** The units of the DELAY step's `{ amount, unit }` duration, which campaigns' A/B tests share. */
export type { DurationUnit };

/** An event as steps and Liquid see it (`event` in the execution context). */
export interface EventPayload {
  id: string;
  name: string;
  data: Record<string, unknown>;
  createdAt: string;
}

/** Carries one routed event to an execution; the event id makes a repeated delivery harmless. */
export const eventSignal = defineSignal<[EventPayload]>('event');

export interface GraphSnapshot {
  triggerStepId: string;
  /** Configs as parsed by their type's schema when the execution started; `invalid` says why one did not parse. */
  steps: { id: string; type: string; name: string; config: unknown; invalid?: string }[];
  /** `branch` is one of the source step's branches (fixed by its type, or derived from its config). */
  transitions: { fromStepId: string; toStepId: string; branch: string }[];
}

export interface ExecutionInput {
  executionId: string;
  projectId: string;
  workflowId: string;
  contactId: string;
  /**
   * The graph as it was when the execution started: later edits never reach a running execution,
   * so a waiting one cannot find its step gone or its branch rewired (docs/workflows.md).
   */
  graph: GraphSnapshot;
  context: Record<string, unknown>;
  /** Multiplies every DELAY and WAIT_FOR_EVENT timeout (WORKFLOW_TIME_SCALE; 1 in production). */
  timeScale?: number;
  /**
   * The trigger step's row and the execution's current step were written with the execution row
   * (db/executions createExecution), so the engine does not repeat that write. Absent in inputs of
   * executions created before this existed: those record it themselves.
   */
  startRecorded?: boolean;
  /** Set by continue-as-new: where the previous run stopped. */
  resume?: { stepId: string; seq: number; seenEventIds: string[] };
  /**
   * A test run (POST /workflows/:id/test): every wait lasts at most `waitMs`, and webhooks are
   * called only with `callWebhooks`. Where its emails go is in the execution row, not here (an
   * address is personal data). Absent on every real execution, so their replays are untouched.
   */
  test?: TestMode;
}

/** The test flag of an execution's input (ExecutionInput.test). */
export interface TestMode {
  callWebhooks: boolean;
  /** The longest any wait of the run lasts, in milliseconds. */
  waitMs: number;
}

export type ExecutionEnd = 'COMPLETED' | 'EXITED' | 'FAILED' | 'CANCELLED';
export type StepRecordStatus = 'COMPLETED' | 'SKIPPED' | 'FAILED' | 'CANCELLED';

/** One mirror write: finishes a step, starts the next, and/or ends the execution. */
export interface ProgressUpdate {
  executionId: string;
  /**
   * The whole context after the step; omitted leaves the stored one. Only histories written before
   * contexts stayed in Postgres send it: it holds event data and webhook answers, personal data
   * that must not reach Temporal (temporal/summaries.ts).
   */
  context?: Record<string, unknown>;
  /** Keys a step added or changed, merged into the stored context (ids and statuses, never contact data). */
  contextPatch?: Record<string, unknown>;
  /** The event (by id) a WAIT_FOR_EVENT received: the activity reads it and stores it as the context's `event`. */
  contextEventId?: string;
  /**
   * `branch`: the branch the step was left by (its node's per-branch count, migration 055); absent
   * when it ended the execution, failed or was cancelled. An activity input only: replay-safe.
   */
  finished?: { seq: number; status: StepRecordStatus; output?: unknown; error?: string; branch?: string };
  started?: { seq: number; stepId: string; type: string };
  end?: { status: ExecutionEnd; error?: string };
}

/** A step boundary written together with the wait that follows it (activity `enterExecutionWait`). */
export type BoundaryUpdate = Omit<ProgressUpdate, 'executionId' | 'end'>;

export interface DeliverEmailInput {
  emailId: string;
}

/** The ids are for operators; the activity reads the batch's rows by the workflow's id (db/deliveryBatches). */
export interface DeliverEmailBatchInput {
  emailIds: string[];
}

export interface RouteEventInput {
  eventId: string;
}

export interface RouteEventBatchInput {
  eventIds: string[];
}

export interface BulkJobInput {
  jobId: string;
  /** Rows per activity call (one transaction each). */
  batchSize?: number;
  /** Batches before continuing as new, which keeps the history small for big imports. */
  batchesPerRun?: number;
  /** Row number to continue after; set by continueAsNew in runs started before `afters`. */
  after?: number;
  /**
   * Imports: batches in flight at once, each lane taking the rows whose email hashes to it (db/jobs
   * processJobBatch), so one contact's rows stay in order. Absent or 1: one batch after another
   * (every run started before lanes, and bulk and export jobs).
   */
  lanes?: number;
  /** Each lane's row number to continue after; set by continueAsNew (runs before lanes set `after`). */
  afters?: number[];
}

export interface SegmentComputeInput {
  segmentId: string;
  batchSize?: number;
}

export interface SegmentRecomputeInput {
  /** Shared by every run of one sweep (continueAsNew keeps it), so child ids stay unique per sweep. */
  sweepKey?: string;
  afterId?: string | null;
}

export interface ComputeResult {
  memberCount: number;
  entered: number;
  exited: number;
}

/**
 * config.campaigns: `CAMPAIGN_BATCH_SIZE`, `CAMPAIGN_BATCHES_PER_RUN` and `CAMPAIGN_BATCH_LANES`. Lanes:
 * one batch alternates between the worker (render, payload) and Postgres or the provider (rows,
 * hand-over); a few at once keep both busy (docs/benchmarks.md).
 */
export type CampaignSendSettings = CampaignConfig;

/** One run of an RSS campaign (temporal/workflows/rssCampaignRun.ts): ids only. */
export interface RssCampaignRunInput {
  campaignId: string;
  projectId: string;
  /** Set by "Send now" (the run's id); a Schedule's runs make their own. */
  runId?: string;
}

export interface CampaignSendInput extends Omit<CampaignSendSettings, 'batchLanes'> {
  campaignId: string;
  projectId: string;
  /** ISO instant to sleep until; null sends at once. */
  scheduledFor: string | null;
  /** Contact id the next batch starts after; set by continueAsNew (and means "already started"). */
  cursor?: string;
  /** Batches in flight at once; absent in inputs of runs started before lanes existed, which keep one. */
  batchLanes?: number;
  /** Set by continueAsNew: what earlier runs did, for the `state` query and the current details. */
  progress?: { totalRecipients: number; handedOver: number; failed: number };
  /** Multiplies the waits for deferred recipients and the pacing (WORKFLOW_TIME_SCALE; 1 in production). */
  timeScale?: number;
  /** The campaign's pace, from beginCampaignSend; carried by continueAsNew. */
  sendRatePerMinute?: number;
  /**
   * The phase of the campaign's A/B subject test (docs/campaigns.md): `test` hands over the test
   * group only, `rest` the others with the winning subject once it is chosen. Absent: no test.
   */
  abTest?: 'test' | 'rest';
}

// ───────────────────────────── what a running workflow tells operators ─────────────────────────────

/** `state` of a `workflowExecution`, in the API's field names (GET /workflows/:id/executions/:executionId). */
export interface ExecutionState {
  status: 'RUNNING' | 'WAITING' | ExecutionEnd;
  currentStepId: string | null;
  stepType: string | null;
  /** The event name a WAIT_FOR_EVENT step waits for. */
  waitingFor: string | null;
  /** When a DELAY ends or a WAIT_FOR_EVENT times out (ISO). */
  wakeAt: string | null;
  seq: number;
}

/** `state` of a `campaignSend`, in the API's field names. */
export interface CampaignState {
  status: 'SCHEDULED' | 'STARTING' | 'SENDING' | 'PAUSED' | 'SENT' | 'CANCELLED';
  totalRecipients: number | null;
  /** Recipients this campaign's batches have handed to the provider so far (all runs). */
  handedOver: number;
  failed: number;
  /** Batches in flight now. */
  lanes: number;
  paused: boolean;
  /** When the pause in effect began (ISO). */
  pausedSince: string | null;
  /** Only for a campaign with an A/B subject test: its phase, and when the winner is (or was) due (ISO). */
  abTest?: { phase: 'test' | 'waiting' | 'rest'; winnerAt: string | null };
}

/** `state` of a `bulkJob` (rows) or a `segmentCompute` (contacts walked): `total` is null while unknown. */
export interface JobState {
  status: 'RUNNING' | 'COMPLETED' | 'FAILED';
  processed: number;
  total: number | null;
  batches: number;
}

export const executionStateQuery = defineQuery<ExecutionState>('state');
export const campaignStateQuery = defineQuery<CampaignState>('state');
export const jobStateQuery = defineQuery<JobState>('state');

/**
 * SENDING → PAUSED: no further batch is handed over (those in flight finish). Refused by the
 * workflow's validator unless it is sending and not paused; answers the state once the campaign row
 * says PAUSED.
 */
export const pauseCampaignUpdate = defineUpdate<CampaignState>('pause');
/** PAUSED → SENDING: sending continues with the recipients not yet handed over. */
export const resumeCampaignUpdate = defineUpdate<CampaignState>('resume');

/** Sent by the compute activity after each committed batch, so the workflow can tell where it stands. */
export const segmentProgressSignal = defineSignal<[{ batches: number; processed: number }]>('computeProgress');

/** An event committed to Postgres and not yet routed: what a routing start needs of it. */
export interface RoutableEvent {
  id: string;
  project_id: string;
  contact_id: string | null;
  name: string;
}

/** The input of `webhookDelivery`, the one delivery workflow of an endpoint (`webhook-<endpointId>`). */
export interface WebhookDeliveryInput {
  endpointId: string;
}

/** "New messages are queued": wakes an idle or sleeping delivery workflow. */
export const WEBHOOK_WAKE_SIGNAL = 'webhookWake';

/** What one drain round did, and what the workflow should do next. */
export interface WebhookRoundResult {
  delivered: number;
  failed: number;
  /** The endpoint is gone or disabled: the workflow ends. */
  stop?: 'deleted' | 'disabled';
  /** A full batch was taken: more may be due right now. */
  more: boolean;
  /** When the next pending message is due; null when none is pending. */
  nextDueInMs: number | null;
}

/** One project's scheduled emails due in one minute (`minute`: its first millisecond, epoch ms). */
export interface ScheduledSendInput {
  projectId: string;
  minute: number;
}

/** "An email of this minute was scheduled or rescheduled": wakes the minute's workflow to look again. */
export const SCHEDULED_WAKE_SIGNAL = 'scheduledWake';

/** What one hand-over round of a minute did, and when the next of its emails is due. */
export interface ScheduledRoundResult {
  handedOver: number;
  /** The earliest `send_at` (epoch ms) of the minute still SCHEDULED; null when none is left. */
  nextDueAt: number | null;
}
