import { proxyActivities, log, patched } from '@temporalio/workflow';
import type { maintenanceActivities } from '../../activities/maintenance';
import type { campaignActivities } from '../../activities/campaigns';
import type { providerEventActivities } from '../../activities/providerEvents';

const { pruneExpired, resumeOrphans, resumeCampaigns, pruneProviderEvents, ensurePartitionsAhead } = proxyActivities<
  ReturnType<typeof maintenanceActivities> & ReturnType<typeof campaignActivities> & ReturnType<typeof providerEventActivities>
>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 3 },
});

/** One sweep's failure is logged and must not keep the others (the crash recovery ones) from running. */
async function attempt<T>(name: string, step: () => Promise<T>): Promise<T | { failed: string }> {
  try {
    return await step();
  } catch (err) {
    log.warn('maintenance step failed', { step: name, error: String(err) });
    return { failed: String(err) };
  }
}

const EVENT_PARTITIONS_PATCH = 'maintenance-event-partitions';

/** Run by the `maintenance` Schedule every minute. */
export async function maintenance() {
  return {
    resumed: await attempt('resumeOrphans', resumeOrphans),
    campaigns: await attempt('resumeCampaigns', resumeCampaigns),
    pruned: await attempt('pruneExpired', pruneExpired),
    providerEventsPruned: await attempt('pruneProviderEvents', pruneProviderEvents),
    // Patched: a run that started before the step existed replays without it.
    ...(patched(EVENT_PARTITIONS_PATCH) ? { partitions: await attempt('ensurePartitionsAhead', ensurePartitionsAhead) } : {}),
  };
}
