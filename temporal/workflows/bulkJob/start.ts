import { type StartOnce, startSpec } from '../../startSpec';
import { bulkJobStart } from '../../summaries';
import { bulkJobWorkflowId } from '../../workflowIds';
import type { bulkJob } from './index';

/** A staged job's run under `job-<id>`: a repeat start is a no-op. */
export const bulkJobSpec = startSpec(
  'bulkJob',
  (job: { id: string; project_id: string; type: string; total: number }): StartOnce<typeof bulkJob> => ({
    workflowId: bulkJobWorkflowId(job.id),
    args: [{ jobId: job.id }],
    ...bulkJobStart({ id: job.id, projectId: job.project_id, type: job.type, total: job.total }),
    searchAttributes: { ProjectId: job.project_id },
    memo: { type: job.type },
  }),
);
