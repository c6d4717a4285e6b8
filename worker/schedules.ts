import { Client, ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import type { WorkflowName } from '../temporal/workflowNames';

export const DOMAIN_VERIFICATION_SCHEDULE = 'domain-verification';
const MAINTENANCE_SCHEDULE = 'maintenance';
const SEGMENT_RECOMPUTE_SCHEDULE = 'segment-recompute';
const RETENTION_SCHEDULE = 'retention';

interface ScheduleSpecDef {
  id: string;
  /** The workflow type, checked against temporal/workflows' exports (temporal/workflowNames.ts). */
  workflowType: WorkflowName;
  every: Duration;
  /** The Web UI's one line for each run (docs/operators.md). */
  summary: string;
}

const SCHEDULES: ScheduleSpecDef[] = [
  {
    id: DOMAIN_VERIFICATION_SCHEDULE,
    workflowType: 'domainVerification',
    every: '5 minutes',
    summary: 'DNS check of every pending sending domain and tracking domain (Schedule, every 5 minutes)',
  },
  {
    id: MAINTENANCE_SCHEDULE,
    workflowType: 'maintenance',
    every: '1 minute',
    summary: 'Sweep: routes unrouted events, starts undelivered emails and orphaned campaigns, prunes old rows (Schedule, every minute)',
  },
  {
    id: RETENTION_SCHEDULE,
    workflowType: 'retention',
    every: '1 hour',
    summary: "Retention: removes email bodies, events and inbound messages older than each project's retention setting (Schedule, every hour)",
  },
  {
    id: SEGMENT_RECOMPUTE_SCHEDULE,
    workflowType: 'segmentRecompute',
    every: '15 minutes',
    summary: 'Recompute of every tracked dynamic segment, one child per segment (Schedule, every 15 minutes)',
  },
];

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
