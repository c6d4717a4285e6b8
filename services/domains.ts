import type { Knex } from 'knex';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import { createResolver, DnsLookup } from './dns';
import { buildRecords, dkimPublicKey, DomainRow, findDomain, insertDkimKey, recordFound, recordProblem, saveDomainCheck } from '../db/domains';
import { generateDkimKey, signsMail } from './dkim';
import { inboundRecords } from './inbound/records';

/** DNS checks of sender domains: run by the `domain-verification` Schedule and by `GET /domains/:id/verify`. */
export function domainChecker(deps: { config: Config; knex: Knex; log: Logger }, resolver: DnsLookup = createResolver(deps.config)) {
  const { spfMechanism } = deps.config;
  return {
    /** Looks the records up and stores what it found; null when the domain no longer exists. */
    async verifyDomain(id: string): Promise<DomainRow | null> {
      const found = await findDomain(deps.knex, id);
      if (!found) return null;
      // Rebuilt from the current SPF include and transport, so a changed provider setting reaches the records shown to the owner.
      // A domain added before DKIM keys existed gets its key here, the first time it is checked while we sign.
      const dkim = signsMail(deps.config)
        ? ((await dkimPublicKey(deps.knex, id)) ?? (await insertDkimKey(deps.knex, id, await generateDkimKey(deps.config, found.domain))))
        : null;
      const expected = buildRecords(found.domain, found.token, spfMechanism, dkim, inboundRecords(deps.config));
      const lookups = [...new Set(expected.map((r) => `${r.type} ${r.name}`))];
      const published = new Map(
        await Promise.all(
          lookups.map(async (key) => {
            const [type, name] = key.split(' ');
            return [key, type === 'MX' ? (await resolver.mx(name)).map((m) => m.exchange) : await resolver.txt(name)] as const;
          }),
        ),
      );
      const records = expected.map((r) => {
        const values = published.get(`${r.type} ${r.name}`) ?? [];
        const valid = recordFound(r, values, spfMechanism);
        // What was found is kept beside the English sentence, so a reader gets the problem in their own language (db/domains.ts problemIn).
        return valid ? { ...r, valid, problem: null } : { ...r, valid, problem: recordProblem(r, values, spfMechanism), found: values };
      });
      const checked = await saveDomainCheck(deps.knex, id, records, new Date());
      if (!checked) return null;
      if (checked.saved.status === 'VERIFIED' && checked.before.status !== 'VERIFIED')
        deps.log.info({ domainId: id, domain: checked.before.domain }, 'domain verified');
      return checked.saved;
    },
  };
}
