import type { TemporalGateway } from './temporal';
import { startWorkflowOnce } from './temporal';
import { bulkJobWorkflowId } from '../temporal/workflowIds';
import { bulkJob } from '../temporal/workflows/bulkJob';
import { bulkJobStart } from '../temporal/summaries';

/** Starts the `bulkJob` workflow of a staged job; a repeat start is a no-op. */
export async function startBulkJob(gateway: TemporalGateway, job: { id: string; project_id: string; type: string; total: number }): Promise<void> {
  await startWorkflowOnce(gateway, bulkJob, {
    workflowId: bulkJobWorkflowId(job.id),
    args: [{ jobId: job.id }],
    ...bulkJobStart({ id: job.id, projectId: job.project_id, type: job.type, total: job.total }),
    searchAttributes: { ProjectId: job.project_id },
    memo: { type: job.type },
  });
}
