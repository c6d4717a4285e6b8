import type { ActivityDeps } from '.';
import { workflowActivities } from './workflows';
import { eventActivities } from './events';

export function eventBatchActivities(deps: ActivityDeps) {
  const { routeEventToWorkflows } = workflowActivities(deps);
  const { markEventRouted } = eventActivities(deps);
  return {
    /**
     * Routes a batch of tracked events in order. Routing one event is idempotent (execution ids are
     * derived from the event, signals deduplicated by event id), so a retried batch is harmless.
     */
    async routeEventBatch(eventIds: string[]): Promise<{ signalled: number; started: number }> {
      let signalled = 0;
      let started = 0;
      for (const id of eventIds) {
        const r = await routeEventToWorkflows(id);
        await markEventRouted(id);
        signalled += r.signalled;
        started += r.started;
      }
      return { signalled, started };
    },
  };
}
