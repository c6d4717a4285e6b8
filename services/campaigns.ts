import type { TemporalGateway } from './temporal';
import { cancelWorkflow, updateWorkflow } from './temporal';
import { pauseCampaignUpdate, resumeCampaignUpdate } from '../temporal/contract';
import type { CampaignState } from '../temporal/contract';
import { campaignWorkflowId } from '../temporal/workflowIds';

/** Temporal cancellation of the campaign's workflow; one that already ended is fine. */
export async function cancelCampaignWorkflow(gateway: TemporalGateway, campaignId: string): Promise<void> {
  await cancelWorkflow(gateway, campaignWorkflowId(campaignId));
}

/**
 * Pause (or resume) through the campaign's workflow: answers once the workflow accepted it and
 * wrote the campaign row, or with the reason it refused (its validator judges its own state).
 */
export async function setCampaignPaused(
  gateway: TemporalGateway,
  campaignId: string,
  paused: boolean,
): Promise<{ result: CampaignState } | { refused: string }> {
  return updateWorkflow(gateway, campaignWorkflowId(campaignId), paused ? pauseCampaignUpdate : resumeCampaignUpdate);
}
