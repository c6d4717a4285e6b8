import type { Knex } from 'knex';
import { randomBase62 } from '../lib/ids';

/**
 * A project's own tracking domain (docs/tracking.md "Your own tracking domain"): one per project,
 * a CNAME to the service's tracking host plus an ownership TXT. The CNAME alone proves only that
 * the name reaches us, not whose it is: without the TXT, one tenant could claim another's tracking
 * domain and have its links (and their never-expiring redirects) carry the other's name.
 */

export type TrackingDomainStatus = 'PENDING' | 'VERIFIED';

export interface TrackingDomainRecord {
  type: 'CNAME' | 'TXT';
  name: string;
  value: string;
  purpose: 'tracking' | 'ownership';
  required: boolean;
  valid: boolean;
}

export interface TrackingDomainRow {
  project_id: string;
  domain: string;
  token: string;
  status: TrackingDomainStatus;
  records: TrackingDomainRecord[];
  last_checked_at: Date | null;
  verified_at: Date | null;
  created_at: Date;
}

const OWNERSHIP_LABEL = '_svc-tracking';
const OWNERSHIP_PREFIX = 'svc-tracking=';

const hostName = (h: string) => h.trim().toLowerCase().replace(/\.$/, '');

/** The records the owner publishes: `<domain> CNAME <tracking host>` and the project's ownership TXT. */
export function trackingDomainRecords(domain: string, token: string, trackingHost: string): TrackingDomainRecord[] {
  return [
    { type: 'CNAME', name: domain, value: trackingHost, purpose: 'tracking', required: true, valid: false },
    { type: 'TXT', name: `${OWNERSHIP_LABEL}.${domain}`, value: `${OWNERSHIP_PREFIX}${token}`, purpose: 'ownership', required: true, valid: false },
  ];
}

/** Whether the values found at a record's name (CNAME targets, or TXT strings) satisfy it. */
export function trackingRecordFound(record: TrackingDomainRecord, found: string[]): boolean {
  return record.type === 'CNAME' ? found.some((target) => hostName(target) === hostName(record.value)) : found.some((t) => t.trim() === record.value);
}

/**
 * Sets the project's tracking domain. The same name again changes nothing (its token and status
 * stay); another name replaces the old one, PENDING with a new token: mail rendered from then on
 * uses the shared host until the new one is verified.
 */
export async function setTrackingDomain(
  knex: Knex,
  projectId: string,
  domain: string,
  trackingHost: string,
): Promise<{ row: TrackingDomainRow; changed: boolean }> {
  const token = randomBase62(24);
  const [replaced] = await knex<TrackingDomainRow>('tracking_domains')
    .insert({ project_id: projectId, domain, token, status: 'PENDING', records: JSON.stringify(trackingDomainRecords(domain, token, trackingHost)) as any })
    .onConflict('project_id')
    .merge({
      domain,
      token,
      status: 'PENDING',
      records: knex.raw('excluded.records'),
      last_checked_at: null,
      verified_at: null,
      created_at: knex.fn.now(),
    } as any)
    .where('tracking_domains.domain', '<>', domain)
    .returning('*');
  if (replaced) return { row: replaced, changed: true };
  return { row: (await findTrackingDomain(knex, projectId))!, changed: false };
}

export async function findTrackingDomain(knex: Knex, projectId: string): Promise<TrackingDomainRow | undefined> {
  return knex<TrackingDomainRow>('tracking_domains').where({ project_id: projectId }).first();
}

/** The project's VERIFIED tracking domain, the one its mail may use; null when none. */
export async function verifiedTrackingDomain(knex: Knex, projectId: string): Promise<string | null> {
  const row = await knex('tracking_domains').where({ project_id: projectId, status: 'VERIFIED' }).first('domain');
  return row?.domain ?? null;
}

export async function deleteTrackingDomain(knex: Knex, projectId: string): Promise<boolean> {
  return (await knex('tracking_domains').where({ project_id: projectId }).del()) > 0;
}

/** The projects whose tracking domain waits for its DNS (the `domain-verification` Schedule checks them). */
export async function pendingTrackingDomainProjects(knex: Knex): Promise<string[]> {
  const rows = await knex('tracking_domains').where({ status: 'PENDING' }).orderBy('created_at').select('project_id');
  return rows.map((r: { project_id: string }) => r.project_id);
}

/**
 * Stores a DNS check of the domain it was made for (a domain changed meanwhile is left alone: the
 * check saw another name). Sticky like a sender domain: VERIFIED never falls back to PENDING.
 * Null when the project has no such domain any more.
 */
export async function saveTrackingDomainCheck(
  knex: Knex,
  projectId: string,
  domain: string,
  records: TrackingDomainRecord[],
  now: Date,
): Promise<{ before: TrackingDomainRow; saved: TrackingDomainRow } | null> {
  return knex.transaction(async (trx) => {
    const row = await trx<TrackingDomainRow>('tracking_domains').where({ project_id: projectId, domain }).forUpdate().first();
    if (!row) return null;
    const verified = row.status === 'VERIFIED' || records.every((r) => !r.required || r.valid);
    const [saved] = await trx<TrackingDomainRow>('tracking_domains')
      .where({ project_id: projectId })
      .update({
        records: JSON.stringify(records) as any,
        status: verified ? 'VERIFIED' : 'PENDING',
        last_checked_at: now,
        verified_at: verified ? (row.verified_at ?? now) : null,
      })
      .returning('*');
    return { before: row, saved };
  });
}
