import type { TemporalGateway } from './temporal';
import { cancelWorkflow, startWorkflowOnce } from './temporal';
import type { CampaignRow } from '../db/campaigns';
import type { CampaignSendSettings } from '../temporal/contract';
import { campaignWorkflowId } from '../temporal/workflowIds';
import { campaignSend } from '../temporal/workflows/campaignSend';

/** Starts `campaignSend` under its deterministic id; a repeat (retried request, sweep) is a no-op. */
export async function startCampaignWorkflow(
  gateway: TemporalGateway,
  c: Pick<CampaignRow, 'id' | 'project_id' | 'name' | 'scheduled_for'>,
  settings: CampaignSendSettings,
  /** config.workflows.timeScale: how long a deferred recipient's wait really lasts (tests shorten it). */
  timeScale = 1,
): Promise<{ started: boolean }> {
  return startWorkflowOnce(gateway, campaignSend, {
    workflowId: campaignWorkflowId(c.id),
    args: [{ campaignId: c.id, projectId: c.project_id, scheduledFor: c.scheduled_for ? new Date(c.scheduled_for).toISOString() : null, ...settings, ...(timeScale !== 1 ? { timeScale } : {}) }],
    searchAttributes: { ProjectId: c.project_id },
    memo: { campaign: c.name },
  });
}

/** Temporal cancellation of the campaign's workflow; one that already ended is fine. */
export async function cancelCampaignWorkflow(gateway: TemporalGateway, campaignId: string): Promise<void> {
  await cancelWorkflow(gateway, campaignWorkflowId(campaignId));
}
