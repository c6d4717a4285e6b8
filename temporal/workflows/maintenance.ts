import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';

const { pruneExpired, resumeOrphans, resumeCampaigns, pruneProviderEvents } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 3 },
});

/** Run by the `maintenance` Schedule every minute. */
export async function maintenance() {
  const pruned = await pruneExpired();
  const resumed = await resumeOrphans();
  const campaigns = await resumeCampaigns();
  const providerEventsPruned = await pruneProviderEvents();
  return { pruned, resumed: { ...resumed, campaigns }, providerEventsPruned };
}
