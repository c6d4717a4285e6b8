import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';

const { listPendingDomainIds, verifyDomain } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 3 },
});

/** Run by the `domain-verification` Schedule: checks the DNS of every pending domain. */
export async function domainVerification(): Promise<{ checked: number; verified: number }> {
  const ids = await listPendingDomainIds();
  let verified = 0;
  // Sequential keeps DNS load gentle; pending domains are few.
  for (const id of ids) {
    const result = await verifyDomain(id);
    if (result?.status === 'VERIFIED') verified++;
  }
  return { checked: ids.length, verified };
}
