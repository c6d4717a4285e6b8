import { proxyActivities, setCurrentDetails, uuid4, workflowInfo } from '@temporalio/workflow';
import type { rssCampaignActivities } from '../../activities/rssCampaigns';
import type { RssCampaignRunInput } from '../contract';

const { runRssCampaign } = proxyActivities<ReturnType<typeof rssCampaignActivities>>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 5 },
});

/**
 * One run of an RSS campaign (docs/campaigns.md "RSS-to-email"), started by the campaign's Schedule
 * (`rss-<campaignId>`) or by "Send now". The I/O is the activity's; the run id is made here once
 * (replay-safe) so every attempt of the activity records the same run. Only ids cross the history.
 */
export async function rssCampaignRun(input: RssCampaignRunInput): Promise<{ status: string; items: number; sentCampaignId: string | null }> {
  // A manual run carries its id; a Schedule's run takes one from its own workflow id (unique per run).
  const runId = input.runId ?? uuid4();
  setCurrentDetails(`RSS campaign ${input.campaignId}: run ${runId} (${workflowInfo().workflowId})`);
  const result = await runRssCampaign({ campaignId: input.campaignId, runId });
  setCurrentDetails(`RSS campaign ${input.campaignId}: ${result.status}, ${result.items} item(s)`);
  return result;
}
