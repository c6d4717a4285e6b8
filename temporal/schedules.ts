import { Client, ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import type { Duration } from '@temporalio/common';

export const DOMAIN_VERIFICATION_SCHEDULE = 'domain-verification';

interface ScheduleSpecDef {
  id: string;
  workflowType: string;
  every: Duration;
}

const SCHEDULES: ScheduleSpecDef[] = [{ id: DOMAIN_VERIFICATION_SCHEDULE, workflowType: 'domainVerification', every: '5 minutes' }];

/** Creates our Schedules when missing; safe to call from every worker at every start. */
export async function ensureSchedules(client: Client, taskQueue: string): Promise<void> {
  for (const s of SCHEDULES) {
    try {
      await client.schedule.create({
        scheduleId: s.id,
        spec: { intervals: [{ every: s.every }] },
        action: { type: 'startWorkflow', workflowType: s.workflowType, taskQueue, workflowId: s.id },
        policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
      });
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    }
  }
}
