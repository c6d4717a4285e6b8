import { uuid } from '../lib/ids';
import type { TemporalGateway } from './temporal';
import { start } from './temporal';
import { deliverEmailBatchStart, deliverEmailBatchWorkflowId } from '../temporal/workflows/deliverEmailBatch/start';

/**
 * Close a batch at this many emails of one project, or this long after its first place was taken.
 * Each batch costs the worker and the server a workflow run whatever its size, so on a small machine
 * fewer, larger batches deliver sooner: measured answer → provider at about 150–220 sends/s, p99
 * 3.1 s with 50 ms, 1.1 s with 100 ms, 0.4 s with 200 ms (docs/benchmarks.md).
 */
const MAX_BATCH = 100;
const MAX_DELAY_MS = 200;

/**
 * A place for a request's emails in a batch: its rows are written naming `workflowId`, and once
 * they committed (or the request failed) the request says so with `settle`.
 */
export interface DeliveryTicket {
  workflowId: string;
  /** The ids committed under this ticket; [] when the request wrote nothing. Call exactly once. */
  settle(emailIds: string[]): void;
}

/** Called when Temporal did not take a batch: its committed rows wait for the maintenance sweep. */
export type BatchStartFailed = (err: unknown, batch: { workflowId: string; emailIds: string[] }) => void;

interface Batch {
  projectId: string;
  workflowId: string;
  emailIds: string[];
  reserved: number;
  unsettled: number;
  closed: boolean;
  started: boolean;
  timer?: NodeJS.Timeout;
}

/**
 * Gathers /v1/send emails per project for a few milliseconds and hands each group to one
 * `deliverEmailBatch` workflow: one Temporal start per batch instead of one per email, which is
 * what lets /v1/send answer at the rate of its own SQL (docs/benchmarks.md). Unlike tracked events,
 * a request learns its batch before it writes: the rows carry the batch workflow's id from their
 * commit, so an API crash before the start leaves rows the maintenance sweep starts that same
 * workflow for. A batch starts once it is closed (full, or its time is up) and every request that
 * took a place in it has committed or failed.
 */
export class DeliveryBatcher {
  private open = new Map<string, Batch>();
  private inFlight = new Set<Promise<void>>();

  constructor(
    private readonly gateway: TemporalGateway,
    private readonly onError: BatchStartFailed,
  ) {}

  reserve(projectId: string, count: number): DeliveryTicket {
    let b = this.open.get(projectId);
    if (b && b.reserved > 0 && b.reserved + count > MAX_BATCH) {
      this.close(b);
      b = undefined;
    }
    if (!b) {
      const created: Batch = {
        projectId,
        workflowId: deliverEmailBatchWorkflowId(uuid()),
        emailIds: [],
        reserved: 0,
        unsettled: 0,
        closed: false,
        started: false,
      };
      created.timer = setTimeout(() => this.close(created), MAX_DELAY_MS);
      this.open.set(projectId, created);
      b = created;
    }
    const batch = b;
    batch.reserved += count;
    batch.unsettled++;
    if (batch.reserved >= MAX_BATCH) this.close(batch);
    let settled = false;
    return {
      workflowId: batch.workflowId,
      settle: (emailIds) => {
        if (settled) return;
        settled = true;
        batch.emailIds.push(...emailIds);
        batch.unsettled--;
        this.startWhenReady(batch);
      },
    };
  }

  private close(b: Batch): void {
    if (b.closed) return;
    b.closed = true;
    clearTimeout(b.timer);
    if (this.open.get(b.projectId) === b) this.open.delete(b.projectId);
    this.startWhenReady(b);
  }

  private startWhenReady(b: Batch): void {
    if (!b.closed || b.unsettled > 0 || b.started) return;
    b.started = true;
    if (!b.emailIds.length) return;
    const started = startDeliveryBatch(this.gateway, { workflowId: b.workflowId, projectId: b.projectId, emailIds: b.emailIds, source: 'POST /v1/send' }).catch(
      (err) => this.onError(err, { workflowId: b.workflowId, emailIds: b.emailIds }),
    );
    this.inFlight.add(started);
    void started.finally(() => this.inFlight.delete(started));
  }

  /** Closes every open batch and waits for their starts (at shutdown, after the last request). */
  async drain(): Promise<void> {
    for (const b of [...this.open.values()]) this.close(b);
    await Promise.all(this.inFlight);
  }
}

/** Starts (or, for the sweep, starts again) a batch under the id its rows name; a repeat is a no-op. */
export async function startDeliveryBatch(
  gateway: TemporalGateway,
  b: { workflowId: string; projectId: string; emailIds: string[]; source: string },
): Promise<void> {
  await start(gateway, deliverEmailBatchStart, b);
}
