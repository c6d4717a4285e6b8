import type { ActivityDeps } from '.';
import { createResolver } from '../services/dns';
import { applyCheck, buildRecords, DomainRow, findDomain, presentDomain, recordFound } from '../db/domains';

/** DNS checks of sender domains: run by the `domain-verification` Schedule and by `GET /domains/:id/verify`. */
export function domainActivities(deps: ActivityDeps) {
  const resolver = createResolver(deps.config);
  const { spfInclude } = deps.config;

  return {
    async listPendingDomainIds(): Promise<string[]> {
      const rows = await deps.knex('domains').where({ status: 'PENDING' }).orderBy('created_at').select('id');
      return rows.map((r: { id: string }) => r.id);
    },

    /** Looks the records up and stores what it found; null when the domain no longer exists. */
    async verifyDomain(id: string): Promise<ReturnType<typeof presentDomain> | null> {
      const found = await findDomain(deps.knex, id);
      if (!found) return null;
      // Rebuilt from the current SPF include, so a changed provider setting reaches the records shown to the owner.
      const expected = buildRecords(found.domain, found.token, spfInclude);
      const names = [...new Set(expected.map((r) => r.name))];
      const txt = new Map(await Promise.all(names.map(async (n) => [n, await resolver.txt(n)] as const)));
      const records = expected.map((r) => ({ ...r, valid: recordFound(r, txt.get(r.name) ?? [], spfInclude) }));

      // DNS is slow, so it is read outside the transaction; the row lock keeps a concurrent check
      // from writing over a verification with a stale PENDING.
      return deps.knex.transaction(async (trx) => {
        const row = await trx<DomainRow>('domains').where({ id }).forUpdate().first();
        if (!row) return null;
        const patch = applyCheck(row, records, new Date());
        const [saved] = await trx<DomainRow>('domains')
          .where({ id })
          .update({ ...patch, records: JSON.stringify(patch.records) as any })
          .returning('*');
        if (patch.status === 'VERIFIED' && row.status !== 'VERIFIED') deps.log.info({ domainId: id, domain: row.domain }, 'domain verified');
        return presentDomain(saved);
      });
    },
  };
}
