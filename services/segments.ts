import type { TemporalGateway } from './temporal';
import { start } from './temporal';
import { uuid } from '../lib/ids';
import { segmentComputeSpec, segmentComputeWorkflowId } from '../temporal/workflows/segmentCompute/start';
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
  const runKey = uuid();
  const workflowId = segmentComputeWorkflowId(segment.id, runKey);
  await start(gateway, segmentComputeSpec, { segment, runKey });
  const client = await gateway.client();
  const timeout = new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), waitMs).unref());
  const outcome = await Promise.race([client.workflow.getHandle(workflowId).result() as Promise<ComputeResult>, timeout]);
  return outcome === 'running' ? { running: true, workflowId } : outcome;
}
