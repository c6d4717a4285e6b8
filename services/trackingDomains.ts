import type { Knex } from 'knex';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import { DomainError } from '../lib/domainErrors';
import { trackingHostOf } from '../lib/trackingSettings';
import { createResolver, DnsLookup } from './dns';
import {
  findTrackingDomain,
  saveTrackingDomainCheck,
  setTrackingDomain,
  trackingDomainRecords,
  trackingRecordFound,
  TrackingDomainRow,
} from '../db/trackingDomains';

type Deps = { config: Pick<Config, 'trackingUrl' | 'appUrl' | 'dnsServers'>; knex: Knex; log: Logger };

/**
 * Sets a project's tracking domain (docs/tracking.md "Your own tracking domain"). The shared
 * tracking host and the app's own host are refused: they are the operator's names, and a project
 * "verifying" one would make every old link there redirect again.
 */
export async function setProjectTrackingDomain(
  deps: Pick<Deps, 'config' | 'knex'>,
  projectId: string,
  domain: string,
): Promise<{ row: TrackingDomainRow; changed: boolean }> {
  const shared = [trackingHostOf(deps.config.trackingUrl), new URL(deps.config.appUrl).hostname];
  if (shared.includes(domain)) {
    throw new DomainError('invalid', `${domain} is this service's own host; use a name of your own, such as track.example.com`, 'domain');
  }
  return setTrackingDomain(deps.knex, projectId, domain, trackingHostOf(deps.config.trackingUrl));
}

/** DNS checks of tracking domains: run by the `domain-verification` Schedule and by the check route. */
export function trackingDomainChecker(deps: Deps, resolver: DnsLookup = createResolver(deps.config)) {
  return {
    /** Looks the records up and stores what it found; null when the project has no tracking domain. Throws DnsLookupError. */
    async verify(projectId: string): Promise<TrackingDomainRow | null> {
      const found = await findTrackingDomain(deps.knex, projectId);
      if (!found) return null;
      // Rebuilt from the current TRACKING_URL, so a moved tracking host reaches the records shown.
      const expected = trackingDomainRecords(found.domain, found.token, trackingHostOf(deps.config.trackingUrl));
      const records = await Promise.all(
        expected.map(async (r) => ({ ...r, valid: trackingRecordFound(r, r.type === 'CNAME' ? await resolver.cname(r.name) : await resolver.txt(r.name)) })),
      );
      const checked = await saveTrackingDomainCheck(deps.knex, projectId, found.domain, records, new Date());
      if (!checked) return null;
      if (checked.saved.status === 'VERIFIED' && checked.before.status !== 'VERIFIED')
        deps.log.info({ projectId, domain: found.domain }, 'tracking domain verified');
      return checked.saved;
    },
  };
}
