import type { Knex } from 'knex';
import type { TemporalGateway } from './temporal';
import { reopenForWaits } from '../db/events';
import { start } from './temporal';
import type { RoutableEvent } from './events';
import { routeEventBatchSpec } from '../temporal/workflows/routeEventBatch/start';
import { eventRoutingHandoff, eventRoutingQueued, eventsHandedOff } from '../lib/metrics';

/** Flush after this many events of one project, or this long after the first one queued. */
const MAX_BATCH = 200;
const MAX_DELAY_MS = 100;

interface Pending {
  events: RoutableEvent[];
  /** Written already routed (nothing listened): checked for waits after their commit, at the flush. */
  settled: RoutableEvent[];
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
    private readonly knex: Knex,
    private readonly failed: {
      /** The routing start failed: the maintenance sweep routes these events. */
      start: (err: unknown, events: RoutableEvent[]) => void;
      /** The check of settled events failed: they stay routed. */
      recheck: (err: unknown, events: RoutableEvent[]) => void;
    },
  ) {}

  /** Events to route; `settled`: events written already routed, to check for waits once committed. */
  enqueue(events: RoutableEvent[], settled = false): void {
    for (const e of events) {
      let p = this.pending.get(e.project_id);
      if (!p) {
        p = { events: [], settled: [], timer: setTimeout(() => this.flush(e.project_id), MAX_DELAY_MS), endTimer: eventRoutingHandoff.startTimer() };
        this.pending.set(e.project_id, p);
      }
      if (settled) p.settled.push(e);
      else {
        p.events.push(e);
        eventRoutingQueued.inc();
      }
      if (p.events.length + p.settled.length >= MAX_BATCH) this.flush(e.project_id);
    }
  }

  private flush(projectId: string): void {
    const p = this.pending.get(projectId);
    if (!p) return;
    this.pending.delete(projectId);
    clearTimeout(p.timer);
    const started = this.handOver(p);
    this.inFlight.add(started);
    void started.finally(() => this.inFlight.delete(started));
  }

  /**
   * Starts the batch's routing. Settled events whose contact has an execution waiting for them now
   * (its wait committed while the event's statement ran) are reopened and routed with the batch:
   * one statement per flush. Waits that committed before that statement were seen by it; waits that
   * commit after it read the event themselves (db/executions markWaiting). Never throws.
   */
  private async handOver(p: Pending): Promise<void> {
    const events = [...p.events];
    if (p.settled.length) {
      try {
        events.push(
          ...(await reopenForWaits(
            this.knex,
            p.settled.map((e) => e.id),
          )),
        );
      } catch (err) {
        this.failed.recheck(err, p.settled);
      }
    }
    let outcome: 'started' | 'failed' = 'started';
    try {
      if (events.length) await startEventBatch(this.gateway, events[0].project_id, events);
    } catch (err) {
      outcome = 'failed';
      this.failed.start(err, events);
    }
    // The queue metric counts events until Temporal answers, so a slow server shows as a growing queue.
    eventRoutingQueued.dec(p.events.length);
    if (!events.length) return;
    p.endTimer({ outcome });
    eventsHandedOff.inc({ outcome }, events.length);
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
