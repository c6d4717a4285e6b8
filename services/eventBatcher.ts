import type { TemporalGateway } from './temporal';
import { startWorkflowOnce } from './temporal';
import type { RoutableEvent } from './events';
import { routeEventBatchWorkflowId } from '../temporal/workflowIds';
import { routeEventBatch } from '../temporal/workflows/routeEventBatch';
import { routeEventBatchStart } from '../temporal/summaries';

/** Flush after this many events of one project, or this long after the first one queued. */
const MAX_BATCH = 200;
const MAX_DELAY_MS = 100;

interface Pending {
  events: RoutableEvent[];
  timer: NodeJS.Timeout;
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
    private readonly onError: (err: unknown) => void,
  ) {}

  enqueue(events: RoutableEvent[]): void {
    for (const e of events) {
      let p = this.pending.get(e.project_id);
      if (!p) {
        p = { events: [], timer: setTimeout(() => this.flush(e.project_id), MAX_DELAY_MS) };
        this.pending.set(e.project_id, p);
      }
      p.events.push(e);
      if (p.events.length >= MAX_BATCH) this.flush(e.project_id);
    }
  }

  private flush(projectId: string): void {
    const p = this.pending.get(projectId);
    if (!p) return;
    this.pending.delete(projectId);
    clearTimeout(p.timer);
    const started = startWorkflowOnce(this.gateway, routeEventBatch, {
      workflowId: routeEventBatchWorkflowId(p.events[0].id),
      args: [{ eventIds: p.events.map((e) => e.id) }],
      ...routeEventBatchStart({ projectId, eventIds: p.events.map((e) => e.id) }),
      searchAttributes: { ProjectId: projectId },
      memo: { events: p.events.length },
    }).then(
      () => undefined,
      (err) => this.onError(err),
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

const batchers = new WeakMap<TemporalGateway, EventBatcher>();

/** Queues tracked events for batched routing on this gateway's batcher (created on first use). */
export function enqueueEventRouting(gateway: TemporalGateway, events: RoutableEvent[], onError: (err: unknown) => void): void {
  let batcher = batchers.get(gateway);
  if (!batcher) {
    const created = new EventBatcher(gateway, onError);
    batchers.set(gateway, created);
    gateway.beforeClose(() => created.drain());
    batcher = created;
  }
  batcher.enqueue(events);
}
