import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import type { ActivityDeps } from './deps';
import type { EventRow } from '../db/events';
import { FilterError } from '../db/filters';
import { beginCompute, computeBatch, finishCompute, listTrackedSegments, ComputeResult, DEFAULT_COMPUTE_BATCH } from '../db/segments';
import { startEventRouting } from '../services/events';
import { signalWorkflow } from '../services/temporal';
import { segmentProgressSignal } from '../temporal/contract';

export interface ComputeSegmentInput {
  segmentId: string;
  /** Names the run: its progress row and its events' ids derive from it (the workflow id). */
  runId: string;
  batchSize?: number;
}

/** Workflow starts per batch run side by side; a first compute of a big segment routes one event per member. */
const ROUTING_CONCURRENCY = 16;

export function segmentActivities(deps: ActivityDeps) {
  const { knex } = deps;

  async function route(events: EventRow[]): Promise<void> {
    const lanes: EventRow[][] = Array.from({ length: ROUTING_CONCURRENCY }, () => []);
    events.forEach((e, i) => {
      lanes[i % ROUTING_CONCURRENCY].push(e);
    });
    await Promise.all(lanes.filter((l) => l.length).map((lane) => startEventRouting(deps.temporal, lane)));
  }

  return {
    /**
     * Diffs a tracked segment's stored membership with its live match, batch by batch (each batch
     * its own transaction, see db/segments computeBatch), and routes each batch's entry/exit
     * events once it has committed. Progress lives in the run row, so a retry resumes after the
     * last committed batch; an event whose routing a crash cut short is picked up by the
     * maintenance sweep of unrouted events.
     */
    async computeSegment(input: ComputeSegmentInput): Promise<ComputeResult> {
      const ctx = Context.current();
      try {
        await beginCompute(knex, input.segmentId, input.runId);
      } catch (err: any) {
        // The segment was deleted before the run began: there is nothing to compute.
        if (err?.code === '23503') return { memberCount: 0, entered: 0, exited: 0 };
        throw err;
      }
      let processed = 0;
      try {
        for (let batch = 1; ; batch++) {
          const { done, events, walked } = await computeBatch(knex, input.runId, input.batchSize ?? DEFAULT_COMPUTE_BATCH);
          await route(events);
          ctx.heartbeat({ batch });
          processed += walked;
          // Progress for the workflow's state query and current details (runId is its workflow id); best effort.
          await signalWorkflow(deps.temporal, input.runId, segmentProgressSignal, { batches: batch, processed }).catch((err) =>
            deps.log.debug({ err, runId: input.runId }, 'segment compute progress signal failed'),
          );
          if (done) break;
          if (ctx.cancellationSignal.aborted) throw new CancelledFailure('segment compute cancelled');
        }
      } catch (err) {
        // A condition that no longer compiles (a key re-typed since) fails the same way on every retry.
        if (err instanceof FilterError) throw ApplicationFailure.nonRetryable(`segment condition: ${err.message}`, 'FilterError');
        throw err;
      }
      return finishCompute(knex, input.runId);
    },

    async listTrackedSegments(afterId: string | null, limit: number) {
      const rows = await listTrackedSegments(knex, afterId, limit);
      return rows.map((r) => ({ id: r.id, projectId: r.project_id, name: r.name }));
    },
  };
}
