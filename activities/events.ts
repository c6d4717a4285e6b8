import type { ActivityDeps } from '.';

export function eventActivities(deps: ActivityDeps) {
  return {
    async markEventRouted(eventId: string): Promise<void> {
      await deps.knex('events').where({ id: eventId }).whereNull('routed_at').update({ routed_at: deps.knex.fn.now() });
    },
  };
}
