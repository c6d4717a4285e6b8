import type { ActivityDeps } from '.';

// Filled in by the domains work: DNS checks of pending domains.
export function domainActivities(deps: ActivityDeps) {
  return {
    async listPendingDomainIds(): Promise<string[]> {
      const rows = await deps.knex('domains').where({ status: 'PENDING' }).select('id');
      return rows.map((r: { id: string }) => r.id);
    },
    async verifyDomain(id: string): Promise<{ status: string } | null> {
      void id;
      return null;
    },
  };
}
