import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';

const { markEventRouted } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumInterval: '1 minute' },
});

export interface RouteEventInput {
  eventId: string;
}

/**
 * Durable hand-off of a tracked event: once the API has started this, the event's consequences
 * happen even if the API dies. Starting triggered executions and signalling waiters is added with
 * automation workflows; for now it records that routing ran.
 */
export async function routeEvent({ eventId }: RouteEventInput) {
  await markEventRouted(eventId);
  return { eventId };
}
