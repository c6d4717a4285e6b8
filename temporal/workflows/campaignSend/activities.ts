import { ActivityCancellationType, proxyActivities } from '@temporalio/workflow';
import type { campaignAbTestActivities } from '../../../activities/campaignAbTest';
import type { campaignActivities } from '../../../activities/campaigns';

type CampaignActivities = ReturnType<typeof campaignActivities>;
type AbTestActivities = ReturnType<typeof campaignAbTestActivities>;

/** The campaign's activities, each with the timeouts and retries its work needs. */
// The audience snapshot is one statement (no heartbeat), so its timeout allows for large audiences;
// so is the A/B test group's pick over it.
export const { beginCampaignSend, finishCampaignSend, markCampaignCancelled, startCampaignAbTest, campaignAbTestWinnerDue, chooseCampaignAbTestWinner } =
  proxyActivities<CampaignActivities & AbTestActivities>({
    startToCloseTimeout: '30 minutes',
    retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
  });

export const { planCampaignBatches, nextCampaignDeferral, clearCampaignDeferrals } = proxyActivities<CampaignActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

// A pause or resume answers the API once this write is done; it is one UPDATE.
export const { setCampaignPaused } = proxyActivities<CampaignActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds' },
});

export const { sendCampaignBatch } = proxyActivities<CampaignActivities>({
  startToCloseTimeout: '10 minutes',
  // A worker that dies mid-batch is noticed within a minute; the retry resumes from the rows' states.
  heartbeatTimeout: '1 minute',
  // A cancel lets the batch in flight settle its hand-over before the workflow closes as cancelled.
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  // Long enough to ride out a provider outage of a few hours; after that the run fails and the
  // maintenance sweep starts the campaign again from its first recipient (sent ones are skipped).
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '2 minutes', maximumAttempts: 150 },
});
