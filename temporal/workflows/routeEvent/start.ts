import type { RoutableEvent } from '../../contract';
import { type StartOnce, startSpec } from '../../startSpec';
import { routeEventStart } from '../../summaries';
import { routeEventWorkflowId } from '../../workflowIds';
import type { routeEvent } from './index';

/** One committed event's routing under `event-<id>`: the sweep and a retried caller start nothing new. */
export const routeEventSpec = startSpec(
  'routeEvent',
  (e: RoutableEvent): StartOnce<typeof routeEvent> => ({
    workflowId: routeEventWorkflowId(e.id),
    args: [{ eventId: e.id }],
    ...routeEventStart({ id: e.id, projectId: e.project_id, contactId: e.contact_id, name: e.name }),
    searchAttributes: { ProjectId: e.project_id, ContactId: e.contact_id ?? undefined },
    memo: { event: e.name },
  }),
);
