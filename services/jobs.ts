import type { TemporalGateway } from './temporal';
import { startWorkflowOnce } from './temporal';
import { bulkJobWorkflowId } from '../temporal/workflowIds';
import { bulkJob } from '../temporal/workflows/bulkJob';

/** Starts the `bulkJob` workflow of a staged job; a repeat start is a no-op. */
export async function startBulkJob(gateway: TemporalGateway, job: { id: string; project_id: string; type: string }): Promise<void> {
  await startWorkflowOnce(gateway, bulkJob, {
    workflowId: bulkJobWorkflowId(job.id),
    args: [{ jobId: job.id }],
    searchAttributes: { ProjectId: job.project_id },
    memo: { type: job.type },
  });
}
