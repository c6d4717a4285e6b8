import type { RssCampaignRunInput } from '../../contract';
import { type StartOnce, startSpec } from '../../startSpec';

/**
 * Start kits of the workflows Temporal Schedules run: the service's own sweeps (worker/schedules.ts
 * creates their Schedules) and an RSS campaign's runs (services/rssSchedules.ts). A Schedule's action
 * names a workflow type and its args, as a start does; the kits hold both, and
 * temporal/workflows/startKits.ts checks them against the workflows like every other kit.
 */

/** A sweep with no input, under one fixed id (its Schedule's), with its one line for the Web UI. */
const sweep = <Type extends string>(workflowType: Type, id: string, summary: string) =>
  startSpec(workflowType, (): StartOnce<[]> => ({ workflowId: id, args: [], summary, details: summary }));

export const domainVerificationSweep = sweep(
  'domainVerification',
  'domain-verification',
  'DNS check of every pending sending domain and tracking domain (Schedule, every 5 minutes)',
);
export const maintenanceSweep = sweep(
  'maintenance',
  'maintenance',
  'Sweep: routes unrouted events, starts undelivered emails and orphaned campaigns, prunes old rows (Schedule, every minute)',
);
export const retentionSweep = sweep(
  'retention',
  'retention',
  "Retention: removes email bodies, events and inbound messages older than each project's retention setting (Schedule, every hour)",
);
export const segmentRecomputeSweep = sweep(
  'segmentRecompute',
  'segment-recompute',
  'Recompute of every tracked dynamic segment, one child per segment (Schedule, every 15 minutes)',
);

/** An RSS campaign's Schedule id; its runs carry it too. */
export const rssScheduleId = (campaignId: string) => `rss-${campaignId}`;

export interface RssRun {
  campaign: { id: string; name: string; projectId: string };
  /** Set for "Send now": one run beside the Schedule, under its own id. */
  runId?: string;
}

/** One run of an RSS campaign: by its Schedule, or at once ("Send now"). */
export const rssCampaignRunSpec = startSpec('rssCampaignRun', ({ campaign: c, runId }: RssRun): StartOnce<[RssCampaignRunInput]> => {
  const summary = `RSS campaign ${c.name} (${c.id}): one run`;
  return {
    workflowId: runId ? `${rssScheduleId(c.id)}-now-${runId}` : rssScheduleId(c.id),
    args: [{ campaignId: c.id, projectId: c.projectId, ...(runId ? { runId } : {}) }],
    summary: runId ? `${summary}, sent now` : summary,
    details: `Project ${c.projectId}; campaign ${c.id}; GET /campaigns/${c.id}/runs`,
    searchAttributes: { ProjectId: c.projectId, CampaignId: c.id },
    memo: { campaign: c.name },
  };
});
