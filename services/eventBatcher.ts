import type { TemporalGateway } from './temporal';
import { start } from './temporal';
import type { RoutableEvent } from './events';
import { routeEventBatchSpec } from '../temporal/workflows/routeEventBatch/start';
import { eventRoutingHandoff, eventRoutingQueued, eventsHandedOff } from '../lib/metrics';

/** Flush after this many events of one project, or this long after the first one queued. */
const MAX_BATCH = 200;
const MAX_DELAY_MS = 100;

interface Pending {
  events: RoutableEvent[];
  timer: NodeJS.Timeout;
  /** When the first event was queued: the hand-off latency histogram measures from here. */
  endTimer: (labels: { outcome: 'started' | 'failed' }) => number;
}

/**
 * Gathers tracked events per project for a few milliseconds and hands each group to one
 * `routeEventBatch` workflow: one Temporal start per batch instead of per event is what lets
 * /v1/track keep up with its own SQL. Durability does not depend on this: the events are committed
 * first, and the maintenance sweep routes any a crash left unrouted.
 */
export class EventBatcher {
  private pending = new Map<string, Pending>();
  private inFlight = new Set<Promise<void>>();

  constructor(
    private readonly gateway: TemporalGateway,
    private readonly onError: (err: unknown, events: RoutableEvent[]) => void,
  ) {}

  enqueue(events: RoutableEvent[]): void {
    for (const e of events) {
      let p = this.pending.get(e.project_id);
      if (!p) {
        p = { events: [], timer: setTimeout(() => this.flush(e.project_id), MAX_DELAY_MS), endTimer: eventRoutingHandoff.startTimer() };
        this.pending.set(e.project_id, p);
      }
      p.events.push(e);
      eventRoutingQueued.inc();
      if (p.events.length >= MAX_BATCH) this.flush(e.project_id);
    }
  }

  private flush(projectId: string): void {
    const p = this.pending.get(projectId);
    if (!p) return;
    this.pending.delete(projectId);
    clearTimeout(p.timer);
    // The queue metric counts events until Temporal answers, so a slow server shows as a growing queue.
    const settled = (outcome: 'started' | 'failed') => {
      eventRoutingQueued.dec(p.events.length);
      p.endTimer({ outcome });
      eventsHandedOff.inc({ outcome }, p.events.length);
    };
    const started = startEventBatch(this.gateway, projectId, p.events).then(
      () => settled('started'),
      (err) => {
        settled('failed');
        this.onError(err, p.events);
      },
    );
    this.inFlight.add(started);
    void started.finally(() => this.inFlight.delete(started));
  }

  /** Hands over everything queued (at shutdown). */
  async drain(): Promise<void> {
    for (const projectId of [...this.pending.keys()]) this.flush(projectId);
    await Promise.all(this.inFlight);
  }
}

/**
 * One `routeEventBatch` execution for events of one project, under an id derived from the first
 * event (a repeat is a no-op). For writers that produce their events in batches already (campaign
 * hand-overs); EventBatcher gathers single ones into such batches first.
 */
export async function startEventBatch(gateway: TemporalGateway, projectId: string, events: RoutableEvent[]): Promise<void> {
  if (!events.length) return;
  await start(gateway, routeEventBatchSpec, { projectId, events });
}
