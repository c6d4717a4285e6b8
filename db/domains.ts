import net from 'node:net';
import { domainToASCII } from 'node:url';
import type { Knex } from 'knex';
import { randomBase62, uuid } from '../lib/ids';

export type DomainStatus = 'PENDING' | 'VERIFIED';
export type RecordPurpose = 'ownership' | 'spf' | 'dmarc';

export interface DnsRecord {
  type: 'TXT';
  name: string;
  value: string;
  purpose: RecordPurpose;
  required: boolean;
  valid: boolean;
}

export interface DomainRow {
  id: string;
  project_id: string;
  domain: string;
  token: string;
  status: DomainStatus;
  records: DnsRecord[];
  last_checked_at: Date | null;
  verified_at: Date | null;
  created_at: Date;
}

const OWNERSHIP_LABEL = '_svc-verification';
const OWNERSHIP_PREFIX = 'svc-verification=';
const DMARC_LABEL = '_dmarc';
// The ownership record's name must still be a legal DNS name (253 octets).
const MAX_DOMAIN_LENGTH = 253 - OWNERSHIP_LABEL.length - 1;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** Normalizes a user-typed domain (case, trailing dot, unicode → punycode) or says why it is not one. */
export function parseDomain(input: string): { domain: string } | { error: string } {
  let s = input.trim().toLowerCase();
  if (net.isIP(s.replace(/^\[(.*)\]$/, '$1'))) return { error: 'An IP address is not a domain name' };
  if (/[/:@\s?#\\]/.test(s)) return { error: 'Expected a bare domain name such as example.com (no scheme, path, port or address)' };
  if (s.endsWith('.')) s = s.slice(0, -1);
  if (/[^\x00-\x7f]/.test(s)) s = domainToASCII(s);
  if (!s) return { error: 'Invalid domain name' };
  if (s.length > MAX_DOMAIN_LENGTH) return { error: `Domain name is longer than ${MAX_DOMAIN_LENGTH} characters` };
  const labels = s.split('.');
  if (labels.length < 2) return { error: 'Domain name must contain a dot, such as example.com' };
  if (!labels.every((l) => LABEL.test(l))) return { error: 'Domain name may only contain letters, digits and inner hyphens between dots' };
  if (/^\d+$/.test(labels[labels.length - 1])) return { error: 'Domain name cannot end with a numeric label' };
  return { domain: s };
}

/** Random per project and domain, so two projects can only both verify a domain with two different TXT records. */
const newDomainToken = (): string => randomBase62(24);

/** The DNS records a domain owner must publish; `valid` stays false until a check finds them. */
export function buildRecords(domain: string, token: string, spfInclude: string): DnsRecord[] {
  return [
    { type: 'TXT', name: `${OWNERSHIP_LABEL}.${domain}`, value: `${OWNERSHIP_PREFIX}${token}`, purpose: 'ownership', required: true, valid: false },
    { type: 'TXT', name: domain, value: `v=spf1 include:${spfInclude} ~all`, purpose: 'spf', required: true, valid: false },
    { type: 'TXT', name: `${DMARC_LABEL}.${domain}`, value: 'v=DMARC1; p=none;', purpose: 'dmarc', required: false, valid: false },
  ];
}

const isSpf = (txt: string) => /^v=spf1(\s|$)/i.test(txt.trim());

/** Whether the TXT values published at `record.name` satisfy the record. */
export function recordFound(record: DnsRecord, txt: string[], spfInclude: string): boolean {
  switch (record.purpose) {
    case 'ownership':
      return txt.some((t) => t.trim() === record.value);
    case 'spf': {
      // Two SPF records on one name are a permanent error for receivers (RFC 7208 §4.5), so exactly one must exist.
      const spf = txt.filter(isSpf);
      const include = `include:${spfInclude}`.toLowerCase();
      return spf.length === 1 && spf[0].trim().toLowerCase().split(/\s+/).some((term) => term.replace(/^\+/, '') === include);
    }
    case 'dmarc':
      return txt.some((t) => /^v=DMARC1(\s*;|\s*$)/i.test(t.trim()));
  }
}

const requiredRecordsValid = (records: DnsRecord[]) => records.every((r) => !r.required || r.valid);

/** The columns a check writes. Verification is sticky: a VERIFIED domain never falls back to PENDING. */
export function applyCheck(row: DomainRow, records: DnsRecord[], now: Date): Pick<DomainRow, 'records' | 'status' | 'last_checked_at' | 'verified_at'> {
  const verified = row.status === 'VERIFIED' || requiredRecordsValid(records);
  return {
    records,
    status: verified ? 'VERIFIED' : 'PENDING',
    last_checked_at: now,
    verified_at: verified ? (row.verified_at ?? now) : null,
  };
}


/** The domain of a sender address and each parent domain, most specific first; empty when it has no domain. */
export function senderDomainCandidates(emailAddress: string): string[] {
  const at = emailAddress.lastIndexOf('@');
  if (at < 1) return [];
  const parsed = parseDomain(emailAddress.slice(at + 1));
  if ('error' in parsed) return [];
  const labels = parsed.domain.split('.');
  // A verified domain always has a dot, so a bare TLD never needs to be looked up.
  return labels.slice(0, -1).map((_, i) => labels.slice(i).join('.'));
}

/** True when the address's domain is, or is a subdomain of, one of the project's VERIFIED domains. */
export async function isSenderDomainVerified(knex: Knex, projectId: string, emailAddress: string): Promise<boolean> {
  const q = verifiedSenderDomainQuery(knex, projectId, emailAddress);
  return q ? Boolean(await q.first('id')) : false;
}

/** The rows that make isSenderDomainVerified true (for callers folding the check into a larger statement); null when none can. */
export function verifiedSenderDomainQuery(knex: Knex, projectId: string, emailAddress: string): Knex.QueryBuilder | null {
  const candidates = senderDomainCandidates(emailAddress);
  if (!candidates.length) return null;
  return knex('domains').where({ project_id: projectId, status: 'VERIFIED' }).whereIn('domain', candidates);
}

/** Inserts a new PENDING domain; null when the project already has it. */
export async function createDomain(knex: Knex, projectId: string, domain: string, spfInclude: string): Promise<DomainRow | null> {
  const token = newDomainToken();
  const [row] = await knex<DomainRow>('domains')
    .insert({ id: uuid(), project_id: projectId, domain, token, records: JSON.stringify(buildRecords(domain, token, spfInclude)) as any })
    .onConflict(['project_id', 'domain'])
    .ignore()
    .returning('*');
  return row ?? null;
}

/** A domain by id, scoped to a project when one is given (another project's domain looks missing). */
export async function listDomains(knex: Knex, projectId: string): Promise<DomainRow[]> {
  return knex<DomainRow>('domains').where({ project_id: projectId }).orderBy([{ column: 'created_at' }, { column: 'id' }]);
}

export async function deleteDomain(knex: Knex, projectId: string, id: string): Promise<boolean> {
  return (await knex('domains').where({ id, project_id: projectId }).del()) > 0;
}

export async function findDomain(knex: Knex, id: string, projectId?: string): Promise<DomainRow | undefined> {
  const q = knex<DomainRow>('domains').where({ id });
  if (projectId) q.andWhere({ project_id: projectId });
  return q.first();
}

export async function pendingDomainIds(knex: Knex): Promise<string[]> {
  const rows = await knex('domains').where({ status: 'PENDING' }).orderBy('created_at').select('id');
  return rows.map((r: { id: string }) => r.id);
}

/**
 * Stores a DNS check. DNS is slow, so it is read outside this transaction; the row lock keeps a
 * concurrent check from writing over a verification with a stale PENDING. Null when the domain is gone.
 */
export async function saveDomainCheck(knex: Knex, id: string, records: DnsRecord[], now: Date): Promise<{ before: DomainRow; saved: DomainRow } | null> {
  return knex.transaction(async (trx) => {
    const row = await trx<DomainRow>('domains').where({ id }).forUpdate().first();
    if (!row) return null;
    const patch = applyCheck(row, records, now);
    const [saved] = await trx<DomainRow>('domains')
      .where({ id })
      .update({ ...patch, records: JSON.stringify(patch.records) as any })
      .returning('*');
    return { before: row, saved };
  });
}
