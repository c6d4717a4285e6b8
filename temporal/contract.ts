/**
 * The engine's contract with the layers around it: workflow inputs, the execution snapshot, the
 * progress mirror and the event payload. Types only, so db/, services/ and activities/ may
 * `import type` from here without loading sandbox code. Signals and queries are values and live
 * with the workflow that owns them (e.g. `eventSignal` in workflows/workflowExecution.ts).
 */
import type { CampaignConfig } from '../lib/config';

/** An event as steps and Liquid see it (`event` in the execution context). */
export interface EventPayload {
  id: string;
  name: string;
  data: Record<string, unknown>;
  createdAt: string;
}

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
}

export type ExecutionEnd = 'COMPLETED' | 'EXITED' | 'FAILED' | 'CANCELLED';
export type StepRecordStatus = 'COMPLETED' | 'SKIPPED' | 'FAILED' | 'CANCELLED';

/** One mirror write: finishes a step, starts the next, and/or ends the execution. */
export interface ProgressUpdate {
  executionId: string;
  /** The context after the step; omitted leaves the stored one. */
  context?: Record<string, unknown>;
  finished?: { seq: number; status: StepRecordStatus; output?: unknown; error?: string };
  started?: { seq: number; stepId: string; type: string };
  end?: { status: ExecutionEnd; error?: string };
}

export interface DeliverEmailInput {
  emailId: string;
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
  /** Row number to continue after; set by continueAsNew. */
  after?: number;
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

export interface CampaignSendInput extends Omit<CampaignSendSettings, 'batchLanes'> {
  campaignId: string;
  projectId: string;
  /** ISO instant to sleep until; null sends at once. */
  scheduledFor: string | null;
  /** Contact id the next batch starts after; set by continueAsNew (and means "already started"). */
  cursor?: string;
  /** Batches in flight at once; absent in inputs of runs started before lanes existed, which keep one. */
  batchLanes?: number;
  /** Multiplies the waits for deferred recipients and the pacing (WORKFLOW_TIME_SCALE; 1 in production). */
  timeScale?: number;
  /** The campaign's pace, from beginCampaignSend; carried by continueAsNew. */
  sendRatePerMinute?: number;
}
