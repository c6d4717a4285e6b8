import { log, proxyActivities } from '@temporalio/workflow';
import type { domainActivities } from '../../activities/domains';

const { listPendingDomainIds, verifyDomain, listPendingTrackingDomains, verifyTrackingDomain } = proxyActivities<ReturnType<typeof domainActivities>>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 3 },
});

/** Run by the `domain-verification` Schedule: checks the DNS of every pending sender domain, then of every pending tracking domain. */
export async function domainVerification(): Promise<{ checked: number; verified: number; failed: number }> {
  const ids = await listPendingDomainIds();
  let verified = 0;
  let failed = 0;
  // Sequential keeps DNS load gentle; pending domains are few.
  for (const id of ids) {
    try {
      const result = await verifyDomain(id);
      if (result?.status === 'VERIFIED') verified++;
    } catch (err) {
      // One domain whose DNS keeps failing must not keep the others from being checked; the next run retries it.
      failed++;
      log.warn('domain check failed', { domainId: id, error: String(err) });
    }
  }
  // Projects' own tracking domains (docs/tracking.md), in the same run and under the same rule.
  const projects = await listPendingTrackingDomains();
  for (const projectId of projects) {
    try {
      const result = await verifyTrackingDomain(projectId);
      if (result?.status === 'VERIFIED') verified++;
    } catch (err) {
      failed++;
      log.warn('tracking domain check failed', { projectId, error: String(err) });
    }
  }
  return { checked: ids.length + projects.length, verified, failed };
}
