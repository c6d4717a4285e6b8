import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import type { ActivityDeps } from './deps';
import type { RoutableEventRow } from '../db/events';
import { FilterError } from '../db/filters';
import { listTrackedSegments, ComputeResult } from '../db/segments';
import { beginCompute, computeBatch, finishCompute, DEFAULT_COMPUTE_BATCH } from '../db/segmentCompute';
import { startEventBatch } from '../services/eventBatcher';
import { signalWorkflow } from '../services/temporal';
import { segmentProgressSignal } from '../temporal/contract';

export interface ComputeSegmentInput {
  segmentId: string;
  /** Names the run: its progress row and its events' ids derive from it (the workflow id). */
  runId: string;
  batchSize?: number;
}

/** Events per `routeEventBatch` (its input stays far below Temporal's payload limit), and such starts side by side. */
const ROUTING_SLICE = 500;
const ROUTING_CONCURRENCY = 4;

export function segmentActivities(deps: ActivityDeps) {
  const { knex } = deps;

  /** A chunk's events that something acts on, to routing in batches (the ids are derived, so a repeat starts nothing new). */
  async function route(events: RoutableEventRow[]): Promise<void> {
    const slices: RoutableEventRow[][] = [];
    for (let i = 0; i < events.length; i += ROUTING_SLICE) slices.push(events.slice(i, i + ROUTING_SLICE));
    for (let i = 0; i < slices.length; i += ROUTING_CONCURRENCY) {
      await Promise.all(slices.slice(i, i + ROUTING_CONCURRENCY).map((slice) => startEventBatch(deps.temporal, slice[0].project_id, slice)));
    }
  }

  return {
    /**
     * Diffs a tracked segment's stored membership with its live match, chunk by chunk of contacts
     * (each chunk one transaction and one statement, db/segmentCompute.ts), and routes each
     * chunk's entry/exit events that something acts on once it has committed. The contacts are
     * walked in `SEGMENT_COMPUTE_LANES` id ranges side by side, each lane's progress in its own row,
     * so a retry resumes every lane after its last committed chunk; an event whose routing a crash
     * cut short is picked up by the maintenance sweep of unrouted events.
     */
    async computeSegment(input: ComputeSegmentInput): Promise<ComputeResult> {
      const ctx = Context.current();
      const batchSize = input.batchSize ?? DEFAULT_COMPUTE_BATCH;
      let lanes: number[] = [];
      let batches = 0;
      let processed = 0;
      // The first lane to fail stops the others after their chunk in flight; the retry resumes every lane.
      let failure: unknown;
      const walk = async (lane: number) => {
        for (;;) {
          if (failure !== undefined) return;
          const { done, events, walked } = await computeBatch(knex, input.runId, batchSize, lane);
          await route(events);
          batches++;
          processed += walked;
          ctx.heartbeat({ batch: batches });
          // Progress for the workflow's state query and current details (runId is its workflow id); best effort.
          await signalWorkflow(deps.temporal, input.runId, segmentProgressSignal, { batches, processed }).catch((err) =>
            deps.log.debug({ err, runId: input.runId }, 'segment compute progress signal failed'),
          );
          if (done) return;
          if (ctx.cancellationSignal.aborted) throw new CancelledFailure('segment compute cancelled');
        }
      };
      try {
        lanes = await beginCompute(knex, input.segmentId, input.runId, { lanes: deps.config.segments.computeLanes, batchSize });
      } catch (err: any) {
        // The segment was deleted before the run began: there is nothing to compute.
        if (err?.code === '23503') return { memberCount: 0, entered: 0, exited: 0 };
        throw err;
      }
      try {
        await Promise.all(
          lanes.map((lane) =>
            walk(lane).catch((err) => {
              failure ??= err;
            }),
          ),
        );
        if (failure !== undefined) throw failure;
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
