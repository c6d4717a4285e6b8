import type { ActivityDeps } from './deps';
import type { Knex } from 'knex';
import { eventsByIds, findRoutableEvent } from '../db/events';
import { markWaiting, recordProgress, toPayload, WaitingInput } from '../db/executions';
import { startEventRouting } from '../services/events';
import { executionsEnded, executionSteps } from '../lib/metrics';
import type { BoundaryUpdate, EventPayload, ProgressUpdate } from '../temporal/contract';

/** The event travelled as an id; its data is read here, so it never enters the history. */
async function withEventData<U extends BoundaryUpdate>(knex: Knex, update: U): Promise<U> {
  if (!update.contextEventId) return update;
  const [event] = await eventsByIds(knex, [update.contextEventId]);
  return event ? { ...update, contextPatch: { ...update.contextPatch, event: toPayload(event) } } : update;
}

/** The engine's own activities (temporal/workflows/workflowExecution/); each step type's sit beside it in steps/. */
export function workflowActivities(deps: ActivityDeps) {
  const { knex } = deps;
  return {
    /** Mirror of the engine's progress (status, current step, context, step history); idempotent. */
    async recordExecutionProgress(update: ProgressUpdate): Promise<{ active: boolean }> {
      const { active, ended, stepStarted } = await recordProgress(knex, await withEventData(knex, update));
      if (ended) executionsEnded.inc({ status: update.end!.status });
      if (stepStarted) executionSteps.inc({ type: update.started!.type });
      return { active };
    },

    /** The early event comes back without its data: the result is recorded in the history. */
    async markExecutionWaiting(input: WaitingInput): Promise<EventPayload | null> {
      const { early } = await markWaiting(knex, input);
      return early && { ...early, data: {} };
    },

    /**
     * A step boundary and the wait of the step it starts, in one write (the engine's folded path,
     * patch `fold-boundary-write`): `active` false when the execution was cancelled meanwhile.
     */
    async enterExecutionWait({ wait, boundary }: { wait: WaitingInput; boundary: BoundaryUpdate }): Promise<{ active: boolean; early: EventPayload | null }> {
      const { active, stepStarted, early } = await markWaiting(knex, wait, await withEventData(knex, boundary));
      if (stepStarted) executionSteps.inc({ type: boundary.started!.type });
      return { active, early: early && { ...early, data: {} } };
    },

    /** Hands an event recorded inside a workflow (e.g. `email.sent`) to routeEvent, like the API does. */
    async routeRecordedEvent(eventId: string): Promise<void> {
      const event = await findRoutableEvent(knex, eventId);
      if (event) await startEventRouting(deps.temporal, [event]);
    },
  };
}
