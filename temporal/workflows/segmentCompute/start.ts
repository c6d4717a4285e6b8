import type { SegmentComputeInput } from '../../contract';
import { type StartOnce, startSpec } from '../../startSpec';
import { segmentComputeStart } from '../../summaries';
import { segmentComputeWorkflowId } from '../../workflowIds';

/** The id a caller signals, updates or waits on; the start below uses the same one. */
export { segmentComputeWorkflowId };

export interface SegmentComputeStart {
  segment: { id: string; project_id: string; name: string };
  /** Makes each ask its own run: a fresh uuid per API ask, the sweep's key for the Schedule's children. */
  runKey: string;
  /** Who asked (the Web UI's details); the API's route unless said. */
  source?: string;
}

/** One compute of a segment, asked through the API or as a child of the `segment-recompute` sweep. */
export const segmentComputeSpec = startSpec(
  'segmentCompute',
  ({ segment, runKey, source = 'POST /segments/:id/compute' }: SegmentComputeStart): StartOnce<[SegmentComputeInput]> => ({
    workflowId: segmentComputeWorkflowId(segment.id, runKey),
    args: [{ segmentId: segment.id }],
    ...segmentComputeStart({ id: segment.id, projectId: segment.project_id, name: segment.name }, source),
    searchAttributes: { ProjectId: segment.project_id },
    memo: { segment: segment.name },
  }),
);
