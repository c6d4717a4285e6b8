import { Client, ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import type { Duration, Workflow } from '@temporalio/common';
import { domainVerification } from '../temporal/workflows/domainVerification';
import { maintenance } from '../temporal/workflows/maintenance';
import { segmentRecompute } from '../temporal/workflows/segmentCompute';

export const DOMAIN_VERIFICATION_SCHEDULE = 'domain-verification';
const MAINTENANCE_SCHEDULE = 'maintenance';
const SEGMENT_RECOMPUTE_SCHEDULE = 'segment-recompute';

interface ScheduleSpecDef {
  id: string;
  workflow: Workflow;
  every: Duration;
}

const SCHEDULES: ScheduleSpecDef[] = [
  { id: DOMAIN_VERIFICATION_SCHEDULE, workflow: domainVerification, every: '5 minutes' },
  { id: MAINTENANCE_SCHEDULE, workflow: maintenance, every: '1 minute' },
  { id: SEGMENT_RECOMPUTE_SCHEDULE, workflow: segmentRecompute, every: '15 minutes' },
];

function desired(s: ScheduleSpecDef, taskQueue: string) {
  return {
    spec: { intervals: [{ every: s.every }] },
    action: { type: 'startWorkflow' as const, workflowType: s.workflow, taskQueue, workflowId: s.id },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' as Duration },
  };
}

/**
 * Creates our Schedules when missing; safe to call from every worker at every start. An existing
 * Schedule that points at another task queue (TEMPORAL_TASK_QUEUE changed) is moved to this one,
 * otherwise its runs would wait forever on a queue nobody polls.
 */
export async function ensureSchedules(client: Client, taskQueue: string): Promise<string[]> {
  for (const s of SCHEDULES) {
    try {
      await client.schedule.create({ scheduleId: s.id, ...desired(s, taskQueue) });
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
      const handle = client.schedule.getHandle(s.id);
      const current = await handle.describe();
      if (current.action.taskQueue !== taskQueue || current.action.workflowType !== s.workflow.name) {
        await handle.update((prev) => ({ ...prev, ...desired(s, taskQueue) }));
      }
    }
  }
  return SCHEDULES.map((s) => s.id);
}
