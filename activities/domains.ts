import type { ActivityDeps } from './deps';
import { pendingDomainIds, DomainStatus } from '../db/domains';
import { domainChecker } from '../services/domains';
import { pendingTrackingDomainProjects, TrackingDomainStatus } from '../db/trackingDomains';
import { trackingDomainChecker } from '../services/trackingDomains';

/** The `domainVerification` workflow's activities. */
export function domainActivities(deps: ActivityDeps) {
  const checker = domainChecker(deps);
  const tracking = trackingDomainChecker(deps);
  return {
    async listPendingDomainIds(): Promise<string[]> {
      return pendingDomainIds(deps.knex);
    },

    /** Null when the domain no longer exists; ids and status only, the workflow needs no more. */
    async verifyDomain(id: string): Promise<{ id: string; status: DomainStatus } | null> {
      const row = await checker.verifyDomain(id);
      return row && { id: row.id, status: row.status };
    },

    /** The projects whose own tracking domain is still PENDING (docs/tracking.md). */
    async listPendingTrackingDomains(): Promise<string[]> {
      return pendingTrackingDomainProjects(deps.knex);
    },

    /** Checks a project's tracking domain; null when it has none any more. */
    async verifyTrackingDomain(projectId: string): Promise<{ projectId: string; status: TrackingDomainStatus } | null> {
      const row = await tracking.verify(projectId);
      return row && { projectId, status: row.status };
    },
  };
}
