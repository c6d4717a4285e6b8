import { ActivityFailure, continueAsNew, proxyActivities, setCurrentDetails, setHandler } from '@temporalio/workflow';
import type { bulkActivities } from '../../../activities/bulk';
import { jobStateQuery } from '../../contract';
import type { BulkJobInput, JobState } from '../../contract';

const { markJobRunning, applyJobBatch, completeJob } = proxyActivities<ReturnType<typeof bulkActivities>>({
  startToCloseTimeout: '5 minutes',
  // A worker that dies mid-batch is noticed in seconds, not after the start-to-close timeout.
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 10 },
});

// Retried without limit: a job must not be left RUNNING because the database was briefly away.
const { failJob } = proxyActivities<ReturnType<typeof bulkActivities>>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumInterval: '1 minute' },
});

export const DEFAULT_BATCH_SIZE = 500;
export const DEFAULT_BATCHES_PER_RUN = 100;

/**
 * Runs one import or bulk job (workflow id `job-<jobId>`): QUEUED → RUNNING, batches until no row
 * is left, → COMPLETED. Progress lives in the job row, written by each batch. Exactly-once per row
 * is the activity's transaction's job (db/jobs), so a retried batch or a replay is harmless.
 * FAILED only when a batch keeps failing after its retries.
 */
export async function bulkJob(input: BulkJobInput): Promise<void> {
  const { jobId, batchSize = DEFAULT_BATCH_SIZE, batchesPerRun = DEFAULT_BATCHES_PER_RUN } = input;
  const after = input.after ?? 0;
  // The row's own counters, as the last batch reported them (GET /contacts/import/:jobId shows the same).
  const state: JobState = { status: 'RUNNING', processed: 0, total: null, batches: 0 };
  const show = () =>
    setCurrentDetails(
      `${state.status === 'RUNNING' ? 'Running' : state.status === 'COMPLETED' ? 'Completed' : 'Failed'} · ${state.processed.toLocaleString('en-US')} of ${state.total?.toLocaleString('en-US') ?? '?'} rows processed · ${state.batches} batches in this run`,
    );
  setHandler(jobStateQuery, () => state);
  show();
  const lanes = Math.max(1, input.lanes ?? 1);
  // One cursor per lane; a run without lanes (every one started before them) has the one `after`.
  const afters = input.afters?.length === lanes ? [...input.afters] : Array.from({ length: lanes }, () => after);
  const done = afters.map(() => false);
  const report = (r: { processed?: number; total?: number }) => {
    state.batches++;
    // Lanes report out of order: the largest count is the latest.
    state.processed = Math.max(state.processed, r.processed ?? 0);
    state.total = r.total ?? state.total;
    show();
  };
  // A lane applies its batches one after another until it has none left or its share of the run is spent.
  const runLane = async (lane: number) => {
    for (let batch = 0; batch < Math.ceil(batchesPerRun / lanes) && !done[lane]; batch++) {
      // Replay compares commands, not their inputs: runs started before lanes replay this path with lanes = 1.
      const r = await applyJobBatch({ jobId, after: afters[lane], limit: batchSize, lane, lanes });
      report(r);
      if (r.more) afters[lane] = r.last;
      else done[lane] = true;
    }
  };
  try {
    if (input.after === undefined && input.afters === undefined) await markJobRunning(jobId);
    await Promise.all(afters.map((_, lane) => runLane(lane)));
    if (done.every(Boolean)) {
      await completeJob(jobId);
      state.status = 'COMPLETED';
      return show();
    }
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    await failJob(jobId, `Job failed: ${err.cause?.message ?? err.message}`);
    state.status = 'FAILED';
    return show();
  }
  await continueAsNew<typeof bulkJob>({ ...input, afters });
}
