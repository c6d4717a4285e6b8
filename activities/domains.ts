import type { ActivityDeps } from './deps';
import { pendingDomainIds, DomainStatus } from '../db/domains';
import { domainChecker } from '../services/domains';

/** The `domainVerification` workflow's activities. */
export function domainActivities(deps: ActivityDeps) {
  const checker = domainChecker(deps);
  return {
    async listPendingDomainIds(): Promise<string[]> {
      return pendingDomainIds(deps.knex);
    },

    /** Null when the domain no longer exists; ids and status only, the workflow needs no more. */
    async verifyDomain(id: string): Promise<{ id: string; status: DomainStatus } | null> {
      const row = await checker.verifyDomain(id);
      return row && { id: row.id, status: row.status };
    },
  };
}
