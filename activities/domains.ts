import type { ActivityDeps } from '.';
import { pendingDomainIds, presentDomain } from '../db/domains';
import { domainChecker } from '../services/domains';

/** The `domainVerification` workflow's activities. */
export function domainActivities(deps: ActivityDeps) {
  const checker = domainChecker(deps);
  return {
    async listPendingDomainIds(): Promise<string[]> {
      return pendingDomainIds(deps.knex);
    },

    /** Null when the domain no longer exists. */
    async verifyDomain(id: string): Promise<ReturnType<typeof presentDomain> | null> {
      const row = await checker.verifyDomain(id);
      return row && presentDomain(row);
    },
  };
}
