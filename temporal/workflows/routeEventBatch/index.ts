import { proxyLocalActivities } from '@temporalio/workflow';
import type { eventBatchActivities } from '../../../activities/eventBatch';
import type { RouteEventBatchInput } from '../../contract';

const local = proxyLocalActivities<ReturnType<typeof eventBatchActivities>>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumInterval: '1 minute' },
});

/**
 * The hot-path variant of `routeEvent`: tracked events of one project, gathered for a few
 * milliseconds by the API (services/eventBatcher.ts), are routed by one execution instead of one each.
 */
export async function routeEventBatch({ eventIds }: RouteEventBatchInput) {
  const routed = await local.routeEventBatch(eventIds);
  return { events: eventIds.length, ...routed };
}
