import type { Knex } from 'knex';
import type { TemporalGateway } from './temporal';
import { start } from './temporal';
import type { RoutableEvent } from '../temporal/contract';
import { routeEventSpec } from '../temporal/workflows/routeEvent/start';
import { EventBatcher, startEventBatch } from './eventBatcher';

export type { RoutableEvent } from '../temporal/contract';

/**
 * Hands committed events to the durable `routeEvent` workflow. Ids are deterministic, so a repeat
 * (the sweep of unrouted events, a retried caller) starts nothing new.
 */
export async function startEventRouting(gateway: TemporalGateway, events: RoutableEvent[]): Promise<void> {
  for (const e of events) await start(gateway, routeEventSpec, e);
}

/** How committed events reach routing in this process: built once by services/runtime.ts. */
export interface EventHandOff {
  /**
   * Hands committed events to routing and never throws: a Temporal outage must not turn a done
   * change into an error, and need not, because the maintenance sweep routes whatever stays
   * unrouted. It logs the failure once. `batch`: one `routeEventBatch` per project (writers that
   * produce events in groups: campaign and delivery hand-overs, opens and clicks) instead of one
   * `routeEvent` each; `context` names the writer in that log line.
   */
  handOff(events: RoutableEvent[], opts?: { batch?: boolean; context?: Record<string, unknown> }): Promise<void>;
  /** Queues single events (/v1/track) for the batcher, which hands them off the same way; returns at once. */
  queue(events: RoutableEvent[]): void;
  /**
   * Events written already routed because nothing listened (db/contactWriters linkedEvent): the batcher
   * checks them once more for a wait that committed while they were written, and routes those.
   */
  recheck(events: RoutableEvent[]): void;
  /** Hands off everything queued (at shutdown). */
  drain(): Promise<void>;
}

type HandOffDeps = { temporal: TemporalGateway; knex: Knex; log: { warn: (obj: object, msg: string) => void } };

export function createEventHandOff(deps: HandOffDeps): EventHandOff {
  const failed = (err: unknown, events: RoutableEvent[], context?: Record<string, unknown>) =>
    deps.log.warn(
      { err, ...context, events: events.length, first: events[0]?.id },
      'event routing start failed; the maintenance sweep will route these events',
    );
  const batcher = new EventBatcher(deps.temporal, deps.knex, {
    start: (err, events) => failed(err, events),
    recheck: (err, events) =>
      deps.log.warn(
        { err, events: events.length, first: events[0]?.id },
        'rechecking events written routed failed; a wait that committed while they were written misses them',
      ),
  });
  return {
    async handOff(events, opts = {}) {
      if (!events.length) return;
      try {
        if (!opts.batch) return await startEventRouting(deps.temporal, events);
        const byProject = new Map<string, RoutableEvent[]>();
        for (const e of events) byProject.set(e.project_id, [...(byProject.get(e.project_id) ?? []), e]);
        for (const [projectId, list] of byProject) await startEventBatch(deps.temporal, projectId, list);
      } catch (err) {
        failed(err, events, opts.context);
      }
    },
    queue: (events) => batcher.enqueue(events),
    recheck: (events) => batcher.enqueue(events, true),
    drain: () => batcher.drain(),
  };
}
