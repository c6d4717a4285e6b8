import type { z } from 'zod';
import type { TrackingDomainOut } from '../schemas/trackingDomain';
import type { TrackingDomainRow } from '../../db/trackingDomains';
import { iso } from '../../lib/time';
import { trackingBaseUrl } from '../../lib/trackingSettings';

export function presentTrackingDomain(row: TrackingDomainRow, trackingUrl: string): z.input<typeof TrackingDomainOut> {
  return {
    domain: row.domain,
    status: row.status,
    records: row.records,
    trackingUrl: trackingBaseUrl(trackingUrl, row.domain),
    lastCheckedAt: iso(row.last_checked_at),
    verifiedAt: iso(row.verified_at),
    createdAt: iso(row.created_at)!,
  };
}
