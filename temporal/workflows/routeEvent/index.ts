import { proxyLocalActivities } from '@temporalio/workflow';
import type { eventBatchActivities } from '../../../activities/eventBatch';
import type { RouteEventInput } from '../../contract';

// Local: every event passes here, and two round trips through the activity task queue per event
// would be most of the cost of routing it.
const local = proxyLocalActivities<ReturnType<typeof eventBatchActivities>>({
  // Fan-out (many waiting executions, many triggered workflows) takes longer than a single write.
  startToCloseTimeout: '2 minutes',
  retry: { maximumInterval: '1 minute' },
});

/**
 * Durable hand-off of an event: once started, its consequences happen even if the API dies.
 * Signals the contact's executions waiting for this event name, starts the executions of the
 * enabled workflows it triggers (services/executions.ts: ids derived from the event, races decided
 * by database constraints), then records that routing ran.
 */
export async function routeEvent({ eventId }: RouteEventInput) {
  // The same routine as routeEventBatch, for a batch of one.
  const routed = await local.routeEventBatch([eventId]);
  return { eventId, ...routed };
}
