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
  let after = input.after ?? 0;
  // The row's own counters, as the last batch reported them (GET /contacts/import/:jobId shows the same).
  const state: JobState = { status: 'RUNNING', processed: 0, total: null, batches: 0 };
  const show = () =>
    setCurrentDetails(
      `${state.status === 'RUNNING' ? 'Running' : state.status === 'COMPLETED' ? 'Completed' : 'Failed'} · ${state.processed.toLocaleString('en-US')} of ${state.total?.toLocaleString('en-US') ?? '?'} rows processed · ${state.batches} batches in this run`,
    );
  setHandler(jobStateQuery, () => state);
  show();
  try {
    if (input.after === undefined) await markJobRunning(jobId);
    for (let batch = 0; batch < batchesPerRun; batch++) {
      const r = await applyJobBatch({ jobId, after, limit: batchSize });
      state.batches++;
      state.processed = r.processed ?? state.processed;
      state.total = r.total ?? state.total;
      show();
      if (!r.more) {
        await completeJob(jobId);
        state.status = 'COMPLETED';
        return show();
      }
      after = r.last;
    }
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    await failJob(jobId, `Job failed: ${err.cause?.message ?? err.message}`);
    state.status = 'FAILED';
    return show();
  }
  await continueAsNew<typeof bulkJob>({ ...input, after });
}
