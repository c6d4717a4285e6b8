import type { RoutableEvent } from '../../contract';
import { type StartOnce, startSpec } from '../../startSpec';
import { routeEventBatchStart } from '../../summaries';
import { routeEventBatchWorkflowId } from '../../workflowIds';
import type { routeEventBatch } from './index';

/** Events of one project routed by one run, under an id derived from the first (a repeat is a no-op). */
export const routeEventBatchSpec = startSpec(
  'routeEventBatch',
  ({ projectId, events }: { projectId: string; events: RoutableEvent[] }): StartOnce<typeof routeEventBatch> => ({
    workflowId: routeEventBatchWorkflowId(events[0].id),
    args: [{ eventIds: events.map((e) => e.id) }],
    ...routeEventBatchStart({ projectId, eventIds: events.map((e) => e.id) }),
    searchAttributes: { ProjectId: projectId },
    memo: { events: events.length },
  }),
);
