import net from 'node:net';
import { domainToASCII } from 'node:url';
import type { Knex } from 'knex';
import { randomBase62, uuid } from '../lib/ids';
import { RECORD_PROBLEM_WORDS } from '../lib/domainProblemWords';
import type { SentenceLanguage } from '../lib/fieldSentences/types';

export type DomainStatus = 'PENDING' | 'VERIFIED';
export type RecordPurpose = 'ownership' | 'spf' | 'dmarc' | 'dkim' | 'inbound' | 'bounce';

export interface DnsRecord {
  type: 'TXT' | 'MX';
  name: string;
  value: string;
  purpose: RecordPurpose;
  required: boolean;
  valid: boolean;
  /** Why the last check did not find the record, in a sentence for the domain's owner; null or absent when found or never checked. */
  problem?: string | null;
  /**
   * What that check found published at `name` (TXT strings, MX exchanges) when it was not the record:
   * the parts `problem` is composed from again in a reader's language (`problemIn`). Never in a response.
   */
  found?: string[];
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
const DKIM_LABEL = '_domainkey';
// The ownership record's name must still be a legal DNS name (253 octets).
const MAX_DOMAIN_LENGTH = 253 - OWNERSHIP_LABEL.length - 1;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** Normalizes a user-typed domain (case, trailing dot, unicode → punycode) or says why it is not one. */
export function parseDomain(input: string): { domain: string } | { error: string } {
  let s = input.trim().toLowerCase();
  if (net.isIP(s.replace(/^\[(.*)\]$/, '$1'))) return { error: 'Enter a domain like example.com — an IP address is not a domain name' };
  if (/[/:@\s?#\\]/.test(s)) return { error: 'Enter a domain like example.com — without https://, a path, a port or an @' };
  if (s.endsWith('.')) s = s.slice(0, -1);
  if (/[^\x00-\x7f]/.test(s)) s = domainToASCII(s);
  if (!s) return { error: 'Enter a domain like example.com' };
  if (s.length > MAX_DOMAIN_LENGTH) return { error: `Domain name is longer than ${MAX_DOMAIN_LENGTH} characters` };
  const labels = s.split('.');
  if (labels.length < 2) return { error: 'Enter a domain like example.com — it needs a dot' };
  if (!labels.every((l) => LABEL.test(l))) return { error: 'Domain name may only contain letters, digits and inner hyphens between dots' };
  if (/^\d+$/.test(labels[labels.length - 1])) return { error: 'Domain name cannot end with a numeric label' };
  return { domain: s };
}

/** Random per project and domain, so two projects can only both verify a domain with two different TXT records. */
const newDomainToken = (): string => randomBase62(24);

/** The public half of a domain's DKIM key, as its DNS record names it. */
export interface DkimPublicKey {
  selector: string;
  /** base64 DER SubjectPublicKeyInfo (the record's `p=`). */
  publicKey: string;
}

/**
 * Where the inbound SMTP server receives (docs/inbound.md): the MX host, and whether the domain's
 * `bounces.` subdomain carries our VERP return paths (SMTP transport, no BOUNCE_DOMAIN).
 */
export interface InboundRecords {
  mxHost: string;
  bounces: boolean;
}

/**
 * The DNS records a domain owner must publish; `valid` stays false until a check finds them. The
 * DKIM record is listed (and required) only when given: when the service signs the mail itself.
 * The MX records of the inbound server are recommended, never required: sending works without them.
 */
export function buildRecords(domain: string, token: string, spf: string, dkim?: DkimPublicKey | null, inbound?: InboundRecords | null): DnsRecord[] {
  const mx = (name: string, purpose: RecordPurpose): DnsRecord => ({
    type: 'MX',
    name,
    value: `10 ${inbound!.mxHost}`,
    purpose,
    required: false,
    valid: false,
  });
  return [
    { type: 'TXT', name: `${OWNERSHIP_LABEL}.${domain}`, value: `${OWNERSHIP_PREFIX}${token}`, purpose: 'ownership', required: true, valid: false },
    { type: 'TXT', name: domain, value: `v=spf1 ${spf} ~all`, purpose: 'spf', required: true, valid: false },
    { type: 'TXT', name: `${DMARC_LABEL}.${domain}`, value: 'v=DMARC1; p=none;', purpose: 'dmarc', required: false, valid: false },
    ...(dkim
      ? [
          {
            type: 'TXT' as const,
            name: `${dkim.selector}.${DKIM_LABEL}.${domain}`,
            value: `v=DKIM1; k=rsa; p=${dkim.publicKey}`,
            purpose: 'dkim' as const,
            required: true,
            valid: false,
          },
        ]
      : []),
    ...(inbound ? [mx(`inbound.${domain}`, 'inbound')] : []),
    ...(inbound?.bounces ? [mx(`bounces.${domain}`, 'bounce')] : []),
  ];
}

/** The tags of a DKIM key record (RFC 6376 §3.6.1: `tag=value` pairs split by `;`, whitespace folded away). */
function dkimTags(txt: string): Map<string, string> {
  const tags = new Map<string, string>();
  for (const part of txt.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) tags.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).replace(/\s+/g, ''));
  }
  return tags;
}

const isSpf = (txt: string) => /^v=spf1(\s|$)/i.test(txt.trim());

const hostName = (h: string) => h.trim().toLowerCase().replace(/\.$/, '');

/** Whether the values published at `record.name` (TXT strings, or MX exchange names for an MX record) satisfy the record. */
export function recordFound(record: DnsRecord, txt: string[], spf: string): boolean {
  switch (record.purpose) {
    case 'inbound':
    case 'bounce': {
      // Any priority will do; the exchange must be our inbound server.
      const host = hostName(record.value.split(/\s+/).pop() ?? '');
      return txt.some((exchange) => hostName(exchange) === host);
    }
    case 'ownership':
      return txt.some((t) => t.trim() === record.value);
    case 'spf': {
      // Two SPF records on one name are a permanent error for receivers (RFC 7208 §4.5), so exactly one must exist.
      const published = txt.filter(isSpf);
      const term = spf.toLowerCase();
      return (
        published.length === 1 &&
        published[0]
          .trim()
          .toLowerCase()
          .split(/\s+/)
          .some((t) => t.replace(/^\+/, '') === term)
      );
    }
    case 'dmarc':
      return txt.some((t) => /^v=DMARC1(\s*;|\s*$)/i.test(t.trim()));
    case 'dkim': {
      // The published key must be ours; other tags (t=, h=, n=) are the owner's business.
      const expected = dkimTags(record.value).get('p');
      return txt.some((t) => {
        const tags = dkimTags(t);
        return (tags.get('v') ?? 'DKIM1') === 'DKIM1' && (tags.get('k') ?? 'rsa') === 'rsa' && tags.get('p') === expected;
      });
    }
  }
}

/**
 * Why `record` is not satisfied by what is published at its name, as its owner can act on it
 * (the dashboard shows it beside the record), in `lang` (lib/domainProblemWords.ts). Called only when
 * recordFound said no.
 */
export function recordProblem(record: DnsRecord, published: string[], spf: string, lang: SentenceLanguage = 'en'): string {
  const words = RECORD_PROBLEM_WORDS[lang];
  const at = record.name;
  if (!published.length) return words.nothingAt(record.type, at);
  switch (record.purpose) {
    case 'inbound':
    case 'bounce':
      return words.mxElsewhere(at, published.join(', '), record.value.split(/\s+/).pop() ?? '');
    case 'ownership':
      return words.ownershipMissing(at);
    case 'spf': {
      const spfs = published.filter(isSpf);
      if (!spfs.length) return words.noSpf(at);
      if (spfs.length > 1) return words.manySpf(at, spfs.length, spf);
      return words.spfWithout(at, spfs[0].trim(), spf);
    }
    case 'dmarc':
      return words.noDmarc(at);
    case 'dkim':
      return words.dkimMissing(at);
  }
}

/**
 * A stored record's problem in `lang`, composed again from what its check found. English, and a record
 * checked before `found` was stored, give the sentence the check stored (English) as it is.
 */
export function problemIn(record: DnsRecord, lang: SentenceLanguage): string | null {
  if (!record.problem) return null;
  if (lang === 'en' || !record.found) return record.problem;
  // The SPF term the check looked for is the one its record carried (buildRecords: `v=spf1 <term> ~all`).
  const spf = record.purpose === 'spf' ? record.value.replace(/^v=spf1\s+/, '').replace(/\s+~all$/, '') : '';
  return recordProblem(record, record.found, spf, lang);
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

/** A generated DKIM key pair, the private half sealed (lib/secretBox). */
export interface NewDkimKey extends DkimPublicKey {
  privateKeySealed: string;
}

/**
 * Inserts a new PENDING domain with its DKIM key (when given) in one transaction; `listDkim` puts the
 * key's record in the records to publish. Null when the project already has the domain.
 */
export async function createDomain(
  knex: Knex,
  projectId: string,
  domain: string,
  spf: string,
  dkim?: { key: NewDkimKey; listed: boolean },
  inbound?: InboundRecords | null,
): Promise<DomainRow | null> {
  const token = newDomainToken();
  const records = buildRecords(domain, token, spf, dkim?.listed ? dkim.key : null, inbound);
  return knex.transaction(async (trx) => {
    const [row] = await trx<DomainRow>('domains')
      .insert({ id: uuid(), project_id: projectId, domain, token, records: JSON.stringify(records) as any })
      .onConflict(['project_id', 'domain'])
      .ignore()
      .returning('*');
    if (row && dkim) await insertDkimKey(trx, row.id, dkim.key);
    return row ?? null;
  });
}

/** Stores a domain's DKIM key unless it has one; the key the domain ends up with is returned. */
export async function insertDkimKey(knex: Knex, domainId: string, key: NewDkimKey): Promise<DkimPublicKey | undefined> {
  try {
    await knex('dkim_keys')
      .insert({ domain_id: domainId, selector: key.selector, public_key: key.publicKey, private_key_sealed: key.privateKeySealed })
      .onConflict('domain_id')
      .ignore();
  } catch (err: any) {
    // The domain was deleted meanwhile (foreign key): it needs no key.
    if (err?.code === '23503') return undefined;
    throw err;
  }
  return dkimPublicKey(knex, domainId);
}

export async function dkimPublicKey(knex: Knex, domainId: string): Promise<DkimPublicKey | undefined> {
  const row = await knex('dkim_keys').where({ domain_id: domainId }).first('selector', 'public_key');
  return row && { selector: row.selector, publicKey: row.public_key };
}

/**
 * The key that signs mail from `fromAddress`: that of the project's most specific VERIFIED domain
 * the address is on (the domain itself or a parent), as its DKIM `d=`. Undefined when none has a key.
 */
export async function senderDkimKey(
  knex: Knex,
  projectId: string,
  fromAddress: string,
): Promise<{ domain: string; selector: string; privateKeySealed: string } | undefined> {
  const q = verifiedSenderDomainQuery(knex, projectId, fromAddress);
  if (!q) return undefined;
  const row = await q
    .join('dkim_keys', 'dkim_keys.domain_id', 'domains.id')
    .orderByRaw('length(domains.domain) DESC')
    .first('domains.domain', 'dkim_keys.selector', 'dkim_keys.private_key_sealed');
  return row && { domain: row.domain, selector: row.selector, privateKeySealed: row.private_key_sealed };
}

/** A domain by id, scoped to a project when one is given (another project's domain looks missing). */
export async function listDomains(knex: Knex, projectId: string): Promise<DomainRow[]> {
  return knex<DomainRow>('domains')
    .where({ project_id: projectId })
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
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
