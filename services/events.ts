import type { TemporalGateway } from './temporal';
import { startWorkflowOnce } from './temporal';
import { routeEventWorkflowId } from '../temporal/workflowIds';
import { routeEvent } from '../temporal/workflows/routeEvent';
import { routeEventStart } from '../temporal/summaries';

export interface RoutableEvent {
  id: string;
  project_id: string;
  contact_id: string | null;
  name: string;
}


/**
 * Hands committed events to the durable `routeEvent` workflow. Ids are deterministic, so a repeat
 * (the sweep of unrouted events, a retried caller) starts nothing new.
 */
export async function startEventRouting(gateway: TemporalGateway, events: RoutableEvent[]): Promise<void> {
  for (const e of events) {
    await startWorkflowOnce(gateway, routeEvent, {
      workflowId: routeEventWorkflowId(e.id),
      args: [{ eventId: e.id }],
      ...routeEventStart({ id: e.id, projectId: e.project_id, contactId: e.contact_id, name: e.name }),
      searchAttributes: { ProjectId: e.project_id, ContactId: e.contact_id ?? undefined },
      memo: { event: e.name },
    });
  }
}

/**
 * For callers that already committed the events: a Temporal outage must not turn a done change
 * into an error, and need not, because the maintenance sweep routes whatever stays unrouted.
 */
export async function handOffEvents(deps: { temporal: TemporalGateway; log: { warn: (obj: object, msg: string) => void } }, events: RoutableEvent[]): Promise<void> {
  try {
    await startEventRouting(deps.temporal, events);
  } catch (err) {
    deps.log.warn({ err, events: events.map((e) => e.id) }, 'event routing start failed; the maintenance sweep will route these events');
  }
}
