import { continueAsNew, executeChild, log, patched, proxyActivities, setCurrentDetails, setHandler, workflowInfo } from '@temporalio/workflow';
import type { segmentActivities } from '../../../activities/segments';
import { jobStateQuery, segmentProgressSignal } from '../../contract';
import type { ComputeResult, JobState, SegmentComputeInput, SegmentRecomputeInput } from '../../contract';
import { beforeKit, childStart } from '../../startSpec';
import { segmentComputeSpec } from './start';

const { computeSegment } = proxyActivities<ReturnType<typeof segmentActivities>>({
  // A compute walks every contact of the project; heartbeats after each batch tell a dead worker apart from a long run.
  startToCloseTimeout: '4 hours',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', maximumAttempts: 20 },
});

const { listTrackedSegments } = proxyActivities<ReturnType<typeof segmentActivities>>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 5 },
});

/** `segment-<segmentId>-<run key>`: one compute run of a segment. */

/**
 * One compute run; its workflow id names the run, so a retried activity resumes the same run. The
 * activity signals its progress after each batch (contacts walked; the total is not counted up front).
 */
export async function segmentCompute(input: SegmentComputeInput): Promise<ComputeResult> {
  const state: JobState = { status: 'RUNNING', processed: 0, total: null, batches: 0 };
  const show = (extra = '') =>
    setCurrentDetails(
      `${state.status === 'RUNNING' ? 'Computing' : 'Completed'} · ${state.batches} batches · ${state.processed.toLocaleString('en-US')} contacts walked${extra}`,
    );
  setHandler(jobStateQuery, () => state);
  setHandler(segmentProgressSignal, (p) => {
    // A retried activity starts counting again from where its run row stood; keep the furthest.
    state.batches = Math.max(state.batches, p.batches);
    state.processed = Math.max(state.processed, p.processed);
    show();
  });
  show();
  const result = await computeSegment({ segmentId: input.segmentId, runId: workflowInfo().workflowId, batchSize: input.batchSize });
  state.status = 'COMPLETED';
  show(` · ${result.memberCount.toLocaleString('en-US')} members (${result.entered} entered, ${result.exited} exited)`);
  return result;
}

const SEGMENTS_PER_RUN = 100;
/** Computes started after this marker carry their kit's Web UI text; earlier ones had none, and replay must say so. */
const COMPUTE_KIT_PATCH = 'segment-compute-kit';
const PARALLEL_COMPUTES = 4;

/**
 * Run by the `segment-recompute` Schedule: computes every tracked dynamic segment as a child
 * workflow, a few at a time, paging through segments by id with continueAsNew so the history stays
 * small however many segments exist. A failing segment is logged and left to the next sweep.
 */
export async function segmentRecompute(input: SegmentRecomputeInput = {}): Promise<{ computed: number; failed: number }> {
  const sweepKey = input.sweepKey ?? String(workflowInfo().startTime.getTime());
  const segments = await listTrackedSegments(input.afterId ?? null, SEGMENTS_PER_RUN);
  let computed = 0;
  let failed = 0;
  for (let i = 0; i < segments.length; i += PARALLEL_COMPUTES) {
    await Promise.all(
      segments.slice(i, i + PARALLEL_COMPUTES).map(async (s) => {
        try {
          const start = childStart(segmentComputeSpec, {
            segment: { id: s.id, project_id: s.projectId, name: s.name },
            runKey: sweepKey,
            source: `segment-recompute Schedule (sweep ${sweepKey})`,
          });
          await executeChild<typeof segmentCompute>(segmentComputeSpec.workflowType, patched(COMPUTE_KIT_PATCH) ? start : beforeKit(start));
          computed++;
        } catch (err) {
          failed++;
          log.warn('segment compute failed', { segmentId: s.id, error: String(err) });
        }
      }),
    );
  }
  if (segments.length === SEGMENTS_PER_RUN) {
    await continueAsNew<typeof segmentRecompute>({ sweepKey, afterId: segments[segments.length - 1].id });
  }
  return { computed, failed };
}
