import type { SegmentComputeInput } from '../../contract';
import { type StartOnce, startSpec } from '../../startSpec';
import { segmentComputeStart } from '../../summaries';
import { segmentComputeWorkflowId } from '../../workflowIds';

/** The id a caller signals, updates or waits on; the start below uses the same one. */
export { segmentComputeWorkflowId };

/** One compute of a segment asked through the API; `runKey` makes each ask its own run. */
export const segmentComputeSpec = startSpec(
  'segmentCompute',
  ({ segment, runKey }: { segment: { id: string; project_id: string; name: string }; runKey: string }): StartOnce<[SegmentComputeInput]> => ({
    workflowId: segmentComputeWorkflowId(segment.id, runKey),
    args: [{ segmentId: segment.id }],
    ...segmentComputeStart({ id: segment.id, projectId: segment.project_id, name: segment.name }, 'POST /segments/:id/compute'),
    searchAttributes: { ProjectId: segment.project_id },
    memo: { segment: segment.name },
  }),
);
