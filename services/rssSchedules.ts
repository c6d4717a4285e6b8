import { ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy, type CalendarSpec } from '@temporalio/client';
import type { CampaignRow, RssSettings } from '../db/campaigns';
import { start, type TemporalGateway } from './temporal';
import { uuid } from '../lib/ids';
import { rssCampaignRunSpec, rssScheduleId } from '../temporal/workflows/scheduled/start';

/**
 * The Temporal Schedule of an RSS campaign (`rss-<campaignId>`): a calendar at the campaign's time in
 * its time zone, daily or on one weekday, starting `rssCampaignRun`. Activating creates it, pause and
 * resume pause and unpause it, cancelling deletes it; "Send now" starts one run beside it.
 */

export { rssScheduleId };

const DAYS = ['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY'] as const;

function calendar(s: RssSettings['schedule']): CalendarSpec {
  const [hour, minute] = s.time.split(':').map(Number);
  return { hour, minute, ...(s.frequency === 'weekly' ? { dayOfWeek: DAYS[s.weekday ?? 1] } : {}) };
}

const runOf = (c: CampaignRow, runId?: string) => ({ campaign: { id: c.id, name: c.name, projectId: c.project_id }, runId });

export async function createRssSchedule(gateway: TemporalGateway, c: CampaignRow): Promise<void> {
  if (!c.rss) return;
  const client = await gateway.client();
  const run = rssCampaignRunSpec.build(runOf(c));
  try {
    await client.schedule.create({
      scheduleId: rssScheduleId(c.id),
      spec: { calendars: [calendar(c.rss.schedule)], timezone: c.rss.schedule.timezone },
      action: {
        type: 'startWorkflow',
        workflowType: rssCampaignRunSpec.workflowType,
        taskQueue: gateway.taskQueue,
        workflowId: run.workflowId,
        args: run.args,
        staticSummary: run.summary,
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
      memo: { campaign: c.name },
    });
  } catch (err) {
    // A retried activation: the Schedule is already there.
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}

/** Pauses or unpauses the Schedule; false when there is none. */
export async function setRssSchedulePaused(gateway: TemporalGateway, campaignId: string, paused: boolean): Promise<boolean> {
  const handle = (await gateway.client()).schedule.getHandle(rssScheduleId(campaignId));
  try {
    await (paused ? handle.pause('paused from the API') : handle.unpause('resumed from the API'));
    return true;
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) return false;
    throw err;
  }
}

export async function deleteRssSchedule(gateway: TemporalGateway, campaignId: string): Promise<void> {
  try {
    await (await gateway.client()).schedule.getHandle(rssScheduleId(campaignId)).delete();
  } catch (err) {
    if (!(err instanceof ScheduleNotFoundError)) throw err;
  }
}

/** "Send now": one run at once, beside the Schedule; its run id. */
export async function startRssRunNow(gateway: TemporalGateway, c: CampaignRow): Promise<string> {
  const runId = uuid();
  await start(gateway, rssCampaignRunSpec, runOf(c, runId));
  return runId;
}
