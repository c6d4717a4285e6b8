import type { ActivityDeps } from './deps';
import { eventsByIds, markEventsRouted, EventRow } from '../db/events';
import { toPayload, waitingExecutionsOf, WaitingExecution } from '../db/executions';
import { GraphCache, triggeredWorkflows } from '../db/workflows';
import { deterministicUuid } from '../lib/ids';
import { forEachLimit } from '../lib/concurrency';
import { signalExecution, startExecution } from '../services/executions';
import { publishEvents } from '../services/webhooks/publish';

/** Contacts routed at once: each is a few statements and Temporal calls, mostly waiting on I/O. */
const CONTACTS_IN_FLIGHT = 16;

const groupBy = <T>(items: T[], key: (t: T) => string) => {
  const out = new Map<string, T[]>();
  for (const item of items) out.set(key(item), [...(out.get(key(item)) ?? []), item]);
  return out;
};

/**
 * Routes events: signals the contact's executions waiting for each event's name (the event id lets
 * the workflow drop a repeat), then starts the enabled workflows it triggers (execution ids derived
 * from event and workflow, races decided by constraints: db/executions createExecution). Routing is
 * idempotent, so a retried batch is harmless.
 *
 * Set-based: the events, the workflows they trigger and the executions waiting on them are read
 * once per batch, each workflow's graph once per version. One contact's events go in order, so an
 * execution one event starts can be reached by the next; different contacts go side by side.
 * An execution that starts waiting after the batch's read catches its event itself: markWaiting
 * reads events not yet routed, and this batch marks them routed only at its end.
 */
export async function routeEvents(deps: ActivityDeps, eventIds: string[]): Promise<{ signalled: number; started: number }> {
  const { knex } = deps;
  const events = (await eventsByIds(knex, eventIds)).filter((e): e is EventRow & { contact_id: string } => !!e.contact_id);
  const names = events.map((e) => e.name);
  const [triggered, waiting] = await Promise.all([
    triggeredWorkflows(
      knex,
      events.map((e) => e.project_id),
      names,
    ),
    waitingExecutionsOf(
      knex,
      events.map((e) => e.contact_id),
      names,
    ),
  ]);
  const workflowsFor = groupBy(triggered, (w) => `${w.project_id}:${w.event_name}`);
  const waitingFor = groupBy<WaitingExecution>(waiting, (x) => `${x.contact_id}:${x.waiting_for}`);
  const graphs = new GraphCache();
  let signalled = 0;
  let started = 0;
  await forEachLimit([...groupBy(events, (e) => e.contact_id).values()], CONTACTS_IN_FLIGHT, async (contactEvents) => {
    for (const event of contactEvents) {
      const payload = toPayload(event);
      for (const x of waitingFor.get(`${event.contact_id}:${event.name}`) ?? []) {
        if (x.trigger_event_id === event.id) continue;
        if (await signalExecution(deps, x.id, payload)) signalled++;
      }
      for (const w of workflowsFor.get(`${event.project_id}:${event.name}`) ?? []) {
        const created = await startExecution(
          deps,
          {
            id: deterministicUuid('workflow-execution', event.id, w.id),
            projectId: event.project_id,
            workflowId: w.id,
            contactId: event.contact_id,
            context: { event: payload },
            triggerEvent: { id: event.id, name: event.name },
            mode: 'trigger',
          },
          graphs,
        );
        if (!('skipped' in created)) started++;
      }
    }
  });
  await publishEvents(deps, eventIds);
  await markEventsRouted(knex, eventIds);
  return { signalled, started };
}

export function eventBatchActivities(deps: ActivityDeps) {
  return {
    /** The work of routeEvent (a batch of one) and routeEventBatch. */
    async routeEventBatch(eventIds: string[]): Promise<{ signalled: number; started: number }> {
      return routeEvents(deps, eventIds);
    },
  };
}
