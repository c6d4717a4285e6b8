import type { TemporalGateway } from './temporal';
import { start } from './temporal';
import type { RoutableEvent } from '../temporal/contract';
import { routeEventSpec } from '../temporal/workflows/routeEvent/start';

export type { RoutableEvent } from '../temporal/contract';


/**
 * Hands committed events to the durable `routeEvent` workflow. Ids are deterministic, so a repeat
 * (the sweep of unrouted events, a retried caller) starts nothing new.
 */
export async function startEventRouting(gateway: TemporalGateway, events: RoutableEvent[]): Promise<void> {
  for (const e of events) await start(gateway, routeEventSpec, e);
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
