import type { TemporalGateway } from './temporal';
import { cancelWorkflow, startWorkflowOnce, updateWorkflow } from './temporal';
import type { CampaignRow } from '../db/campaigns';
import { pauseCampaignUpdate, resumeCampaignUpdate } from '../temporal/contract';
import type { CampaignSendSettings, CampaignState } from '../temporal/contract';
import { campaignWorkflowId } from '../temporal/workflowIds';
import { campaignSend } from '../temporal/workflows/campaignSend';
import { campaignStart } from '../temporal/summaries';

/** Starts `campaignSend` under its deterministic id; a repeat (retried request, sweep) is a no-op. */
export async function startCampaignWorkflow(
  gateway: TemporalGateway,
  c: Pick<CampaignRow, 'id' | 'project_id' | 'name' | 'scheduled_for'>,
  settings: CampaignSendSettings,
  /** config.workflows.timeScale: how long a deferred recipient's wait really lasts (tests shorten it). */
  timeScale = 1,
): Promise<{ started: boolean }> {
  const scheduledFor = c.scheduled_for ? new Date(c.scheduled_for).toISOString() : null;
  return startWorkflowOnce(gateway, campaignSend, {
    workflowId: campaignWorkflowId(c.id),
    args: [{ campaignId: c.id, projectId: c.project_id, scheduledFor, ...settings, ...(timeScale !== 1 ? { timeScale } : {}) }],
    ...campaignStart({ id: c.id, projectId: c.project_id, name: c.name, scheduledFor }),
    searchAttributes: { ProjectId: c.project_id, CampaignId: c.id },
    memo: { campaign: c.name },
  });
}

/** Temporal cancellation of the campaign's workflow; one that already ended is fine. */
export async function cancelCampaignWorkflow(gateway: TemporalGateway, campaignId: string): Promise<void> {
  await cancelWorkflow(gateway, campaignWorkflowId(campaignId));
}

/**
 * Pause (or resume) through the campaign's workflow: answers once the workflow accepted it and
 * wrote the campaign row, or with the reason it refused (its validator judges its own state).
 */
export async function setCampaignPaused(gateway: TemporalGateway, campaignId: string, paused: boolean): Promise<{ result: CampaignState } | { refused: string }> {
  return updateWorkflow(gateway, campaignWorkflowId(campaignId), paused ? pauseCampaignUpdate : resumeCampaignUpdate);
}
