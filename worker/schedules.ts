import { Client, ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import type { StartSpec } from '../temporal/startSpec';
import { domainVerificationSweep, maintenanceSweep, retentionSweep, segmentRecomputeSweep } from '../temporal/workflows/scheduled/start';

interface ScheduleSpecDef {
  id: string;
  /** The workflow type, from its start kit (temporal/workflows/scheduled/start.ts, checked by startKits.ts). */
  workflowType: string;
  every: Duration;
  /** The Web UI's one line for each run (docs/operators.md). */
  summary: string;
}

const scheduled = (kit: StartSpec<string, [], unknown>, every: Duration): ScheduleSpecDef => {
  const run = kit.build(undefined);
  return { id: run.workflowId, workflowType: kit.workflowType, every, summary: run.summary };
};

const SCHEDULES: ScheduleSpecDef[] = [
  scheduled(domainVerificationSweep, '5 minutes'),
  scheduled(maintenanceSweep, '1 minute'),
  scheduled(retentionSweep, '1 hour'),
  scheduled(segmentRecomputeSweep, '15 minutes'),
];

export const DOMAIN_VERIFICATION_SCHEDULE = domainVerificationSweep.build(undefined).workflowId;

function desired(s: ScheduleSpecDef, taskQueue: string) {
  return {
    spec: { intervals: [{ every: s.every }] },
    action: { type: 'startWorkflow' as const, workflowType: s.workflowType, taskQueue, workflowId: s.id, staticSummary: s.summary },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' as Duration },
  };
}

/**
 * Creates our Schedules when missing; safe to call from every worker at every start. An existing
 * Schedule that points at another task queue (TEMPORAL_TASK_QUEUE changed) is moved to this one,
 * otherwise its runs would wait forever on a queue nobody polls; one whose summary changed gets the new one.
 */
export async function ensureSchedules(client: Client, taskQueue: string): Promise<string[]> {
  for (const s of SCHEDULES) {
    try {
      await client.schedule.create({ scheduleId: s.id, ...desired(s, taskQueue) });
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
      const handle = client.schedule.getHandle(s.id);
      const current = await handle.describe();
      const stale = current.action.taskQueue !== taskQueue || current.action.workflowType !== s.workflowType || current.action.staticSummary !== s.summary;
      if (stale) {
        await handle.update((prev) => ({ ...prev, ...desired(s, taskQueue) }));
      }
    }
  }
  return SCHEDULES.map((s) => s.id);
}
