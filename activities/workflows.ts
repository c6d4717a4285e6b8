import type { ActivityDeps } from '.';
import { eventsByIds, findRoutableEvent } from '../db/events';
import { markWaiting, recordProgress, toPayload, WaitingInput } from '../db/executions';
import { startEventRouting } from '../services/events';
import { executionsEnded, executionSteps } from '../lib/metrics';
import type { EventPayload, ProgressUpdate } from '../temporal/contract';

/** The engine's own activities (temporal/workflows/workflowExecution/); each step type's sit beside it in steps/. */
export function workflowActivities(deps: ActivityDeps) {
  const { knex } = deps;
  return {
    /** Mirror of the engine's progress (status, current step, context, step history); idempotent. */
    async recordExecutionProgress(update: ProgressUpdate): Promise<{ active: boolean }> {
      // The event travelled as an id; its data is read here, so it never enters the history.
      if (update.contextEventId) {
        const [event] = await eventsByIds(knex, [update.contextEventId]);
        if (event) update = { ...update, contextPatch: { ...update.contextPatch, event: toPayload(event) } };
      }
      const { active, ended, stepStarted } = await recordProgress(knex, update);
      if (ended) executionsEnded.inc({ status: update.end!.status });
      if (stepStarted) executionSteps.inc({ type: update.started!.type });
      return { active };
    },

    /** The early event comes back without its data: the result is recorded in the history. */
    async markExecutionWaiting(input: WaitingInput): Promise<EventPayload | null> {
      const early = await markWaiting(knex, input);
      return early && { ...early, data: {} };
    },

    /** Hands an event recorded inside a workflow (e.g. `email.sent`) to routeEvent, like the API does. */
    async routeRecordedEvent(eventId: string): Promise<void> {
      const event = await findRoutableEvent(knex, eventId);
      if (event) await startEventRouting(deps.temporal, [event]);
    },
  };
}
