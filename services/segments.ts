import type { TemporalGateway } from './temporal';
import { startWorkflowOnce } from './temporal';
import { segmentComputeStart } from '../temporal/summaries';
import { uuid } from '../lib/ids';
import { segmentComputeWorkflowId } from '../temporal/workflowIds';
import { segmentCompute } from '../temporal/workflows/segmentCompute';
import type { ComputeResult } from '../temporal/contract';

/**
 * Runs the `segmentCompute` workflow (one run, fresh id) and waits up to `waitMs` for its counts; a
 * compute larger than that goes on in Temporal and the caller is told so.
 */
export async function computeSegmentNow(
  gateway: TemporalGateway,
  segment: { id: string; project_id: string; name: string },
  waitMs: number,
): Promise<ComputeResult | { running: true; workflowId: string }> {
  const workflowId = segmentComputeWorkflowId(segment.id, uuid());
  await startWorkflowOnce(gateway, segmentCompute, {
    workflowId,
    args: [{ segmentId: segment.id }],
    ...segmentComputeStart({ id: segment.id, projectId: segment.project_id, name: segment.name }, 'POST /segments/:id/compute'),
    searchAttributes: { ProjectId: segment.project_id },
    memo: { segment: segment.name },
  });
  const client = await gateway.client();
  const timeout = new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), waitMs).unref());
  const outcome = await Promise.race([client.workflow.getHandle<typeof segmentCompute>(workflowId).result(), timeout]);
  return outcome === 'running' ? { running: true, workflowId } : outcome;
}
