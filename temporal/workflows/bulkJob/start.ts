import type { BulkJobInput } from '../../contract';
import { type StartOnce, startSpec } from '../../startSpec';
import { bulkJobStart } from '../../summaries';
import { bulkJobWorkflowId } from '../../workflowIds';

/**
 * Rows per batch of an import: its batch is one set-based write (db/contactBatchWriter), so a
 * bigger batch saves activity round trips while each still commits, and moves the job's progress,
 * within a fraction of a second. Other jobs keep the workflow's default (they apply row by row).
 */
export const IMPORT_BATCH_SIZE = 5000;

/** A staged job's run under `job-<id>`: a repeat start is a no-op. */
export const bulkJobSpec = startSpec(
  'bulkJob',
  // `lanes` (IMPORT_LANES): an import's batches in flight at once. A batch is one Postgres backend's
  // work, so on a 2-core machine a second lane lets Postgres use the other core; each lane owns the
  // contacts whose email hashes to it (db/jobs processJobBatch), so lanes never wait on each other's rows.
  (job: { id: string; project_id: string; type: string; total: number; lanes?: number }): StartOnce<[BulkJobInput]> => ({
    workflowId: bulkJobWorkflowId(job.id),
    args: [
      job.type === 'IMPORT' ? { jobId: job.id, batchSize: IMPORT_BATCH_SIZE, ...(job.lanes && job.lanes > 1 ? { lanes: job.lanes } : {}) } : { jobId: job.id },
    ],
    ...bulkJobStart({ id: job.id, projectId: job.project_id, type: job.type, total: job.total }),
    searchAttributes: { ProjectId: job.project_id },
    memo: { type: job.type },
  }),
);
