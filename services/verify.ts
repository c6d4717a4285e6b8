import { domainToASCII } from 'node:url';
import { disposableEmailBlocklistSet } from 'disposable-email-domains-js';
import { run as suggestSpelling, POPULAR_DOMAINS } from '@zootools/email-spell-checker';
import freeProviders from 'email-providers/all.json';
import commonProviders from 'email-providers/common.json';
import type { DnsLookup, MxRecord } from './dns';

/** The spec's "Email verification result"; `suggestion` is our field for the typo fix. */
export interface VerificationResult {
  email: string;
  valid: boolean;
  isDisposable: boolean;
  isAlias: boolean;
  isTypo: boolean;
  isPlusAddressed: boolean;
  isPersonalEmail: boolean;
  domainExists: boolean;
  hasWebsite: boolean;
  hasMxRecords: boolean;
  /** Why `valid` is false, one plain sentence per failed check; empty exactly when valid. */
  reasons: string[];
  suggestion?: string;
}

export type Resolver = Pick<DnsLookup, 'mx' | 'a' | 'aaaa'>;

// ---------------------------------------------------------------- format

// RFC 5321 limits: the forward path holds 256 octets including the angle brackets.
const MAX_ADDRESS = 254;
const MAX_LOCAL = 64;
const MAX_DOMAIN = 253;
const MAX_LABEL = 63;
// Dot-atom text of RFC 5322; quoted local parts are legal but practically undeliverable, so refused.
const ATEXT = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+$/;
const LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
const TLD = /^(?:[a-z]{2,}|xn--[a-z0-9-]+)$/;

export interface ParsedAddress {
  local: string;
  /** Lower-cased, IDNs in their ASCII (punycode) form: what DNS is asked about. */
  domain: string;
}

/** Splits and checks an address; `problems` lists every format rule it breaks. */
export function parseAddress(email: string): { address?: ParsedAddress; problems: string[] } {
  const at = email.lastIndexOf('@');
  if (at < 0) return { problems: ['Address has no @ sign'] };
  const local = email.slice(0, at);
  const rawDomain = email.slice(at + 1);
  const problems: string[] = [];
  if (email.length > MAX_ADDRESS) problems.push(`Address is longer than ${MAX_ADDRESS} characters`);
  problems.push(...localProblems(local));
  const domain = rawDomain && /[^\x00-\x7f]/.test(rawDomain) ? domainToASCII(rawDomain) : rawDomain.toLowerCase();
  problems.push(...domainProblems(rawDomain, domain));
  return problems.length ? { problems } : { address: { local, domain }, problems };
}

function localProblems(local: string): string[] {
  if (!local) return ['Address has nothing before the @ sign'];
  const out: string[] = [];
  if (local.length > MAX_LOCAL) out.push(`Part before the @ is longer than ${MAX_LOCAL} characters`);
  const atoms = local.split('.');
  if (atoms.some((a) => a === '')) out.push('Part before the @ starts or ends with a dot, or has two dots in a row');
  if (atoms.some((a) => a !== '' && !ATEXT.test(a))) out.push('Part before the @ contains characters not allowed in an address');
  return out;
}

function domainProblems(raw: string, ascii: string): string[] {
  if (!raw) return ['Address has no domain after the @ sign'];
  if (!ascii) return ['Domain is not a valid domain name'];
  if (ascii.length > MAX_DOMAIN) return [`Domain is longer than ${MAX_DOMAIN} characters`];
  const labels = ascii.split('.');
  if (labels.length < 2) return ['Domain has no top-level domain (such as .com)'];
  if (labels.some((l) => l.length > MAX_LABEL)) return [`Domain has a part longer than ${MAX_LABEL} characters`];
  if (!labels.every((l) => LABEL.test(l))) return ['Domain contains characters or dots not allowed in a domain name'];
  if (!TLD.test(labels[labels.length - 1])) return ['Domain has an invalid top-level domain'];
  return [];
}

// ---------------------------------------------------------------- classifications

/** `local+tag@`: the mailbox owner's sub-address; the part before `+` must exist. */
export function isPlusAddressed(local: string): boolean {
  return local.indexOf('+') > 0;
}

/**
 * An alias is a role address: one that names a function (admin, support, …) rather than a person,
 * usually delivered to a group or nobody. Matched on the part before any `+tag`, case-insensitive,
 * ignoring `.`, `-` and `_` so `no-reply` and `no_reply` match `noreply`.
 */
const ROLE_LOCALS = new Set([
  'abuse',
  'admin',
  'administrator',
  'billing',
  'contact',
  'donotreply',
  'help',
  'hello',
  'hostmaster',
  'info',
  'mailerdaemon',
  'marketing',
  'noreply',
  'office',
  'postmaster',
  'root',
  'sales',
  'security',
  'support',
  'team',
  'webmaster',
]);

export function isAlias(local: string): boolean {
  const base = local.split('+')[0].toLowerCase().replace(/[._-]/g, '');
  return ROLE_LOCALS.has(base);
}

const DISPOSABLE = disposableEmailBlocklistSet();

/** Subdomains count too: throwaway services hand out `anything.<their domain>`. */
export function isDisposableDomain(domain: string): boolean {
  const labels = domain.toLowerCase().split('.');
  for (let i = 0; i < labels.length - 1; i++) if (DISPOSABLE.has(labels.slice(i).join('.'))) return true;
  return false;
}

const FREE_PROVIDERS = new Set<string>(freeProviders);

/** A mailbox at a free provider (gmail.com, …); throwaway services are disposable, not personal. */
export function isPersonalDomain(domain: string): boolean {
  const d = domain.toLowerCase();
  return FREE_PROVIDERS.has(d) && !isDisposableDomain(d);
}

// The full provider list also holds typo-squatting domains (gmial.com), so the well-known set that
// decides both "this is already right" and "this is what was meant" is the short, curated one.
const WELL_KNOWN = new Set<string>([...commonProviders, ...POPULAR_DOMAINS]);

/**
 * The intended address when the domain is a near miss of a well-known provider. Suggestions towards
 * other domains are dropped: the checker would otherwise "fix" any company domain with a rare TLD.
 */
export function typoSuggestion(address: ParsedAddress): string | undefined {
  if (WELL_KNOWN.has(address.domain)) return undefined;
  const hit = suggestSpelling({ email: `${address.local}@${address.domain}` });
  if (!hit || hit.domain === address.domain || !WELL_KNOWN.has(hit.domain)) return undefined;
  // The checker lower-cases the whole address; keep the mailbox name as typed.
  return `${address.local}@${hit.domain}`;
}

// ---------------------------------------------------------------- DNS facts, cached per domain

export interface DomainFacts {
  hasMxRecords: boolean;
  domainExists: boolean;
  hasWebsite: boolean;
}

/** Bounded map whose entries expire; insertion order doubles as age, so eviction drops the oldest. */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();
  constructor(
    private readonly ttlMs: number,
    private readonly maxSize: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): V | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.expires > this.now()) return hit.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, value: V): void {
    if (this.ttlMs <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, { value, expires: this.now() + this.ttlMs });
    if (this.entries.size > this.maxSize) this.entries.delete(this.entries.keys().next().value!);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}

/** A null MX (RFC 7505: exchange ".") says the domain takes no mail, so it is not an MX to deliver to. */
function deliverableMx(records: MxRecord[]): boolean {
  return records.some((r) => r.exchange !== '' && r.exchange !== '.');
}

async function hasAddress(resolver: Resolver, name: string): Promise<boolean> {
  const [a, aaaa] = await Promise.all([resolver.a(name), resolver.aaaa(name)]);
  return a.length > 0 || aaaa.length > 0;
}

async function lookupDomain(resolver: Resolver, domain: string): Promise<DomainFacts> {
  const [mx, apex] = await Promise.all([resolver.mx(domain), hasAddress(resolver, domain)]);
  const hasMxRecords = deliverableMx(mx);
  // DNS only: a www host with an address is taken as a website, nothing is fetched.
  const hasWebsite = apex || (await hasAddress(resolver, `www.${domain}`));
  return { hasMxRecords, domainExists: mx.length > 0 || apex, hasWebsite };
}

// ---------------------------------------------------------------- verifier

export interface VerifierOptions {
  resolver: Resolver;
  /** How long one domain's DNS answers are reused; 0 disables the cache. */
  cacheTtlMs?: number;
  cacheSize?: number;
  now?: () => number;
}

export interface Verifier {
  verify(email: string): Promise<VerificationResult>;
}

const DEFAULT_CACHE_TTL_MS = 60_000;
const DEFAULT_CACHE_SIZE = 10_000;

const NOT_CHECKED: Omit<VerificationResult, 'email' | 'reasons'> = {
  valid: false,
  isDisposable: false,
  isAlias: false,
  isTypo: false,
  isPlusAddressed: false,
  isPersonalEmail: false,
  domainExists: false,
  hasWebsite: false,
  hasMxRecords: false,
};

export function createVerifier(opts: VerifierOptions): Verifier {
  // Promises are cached so concurrent checks of one domain share a single set of queries.
  const cache = new TtlCache<Promise<DomainFacts>>(opts.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS, opts.cacheSize ?? DEFAULT_CACHE_SIZE, opts.now);

  function facts(domain: string): Promise<DomainFacts> {
    const cached = cache.get(domain);
    if (cached) return cached;
    const pending = lookupDomain(opts.resolver, domain);
    cache.set(domain, pending);
    // A failed lookup says nothing about the domain; the next check asks again.
    pending.catch(() => cache.delete(domain));
    return pending;
  }

  return {
    async verify(input) {
      const email = input.trim();
      const { address, problems } = parseAddress(email);
      if (!address) return { email, ...NOT_CHECKED, reasons: problems };

      const reasons: string[] = [];
      let dns: DomainFacts = { hasMxRecords: false, domainExists: false, hasWebsite: false };
      try {
        dns = await facts(address.domain);
        if (!dns.domainExists) reasons.push('Domain does not exist (no MX, A or AAAA records)');
        else if (!dns.hasMxRecords) reasons.push('Domain has no MX records, so it cannot receive email');
      } catch (err) {
        reasons.push(`DNS lookup of the domain failed (${(err as { code?: string }).code ?? 'error'}), so delivery could not be confirmed`);
      }
      const isDisposable = isDisposableDomain(address.domain);
      if (isDisposable) reasons.push('Disposable email provider');
      const suggestion = typoSuggestion(address);

      return {
        email,
        valid: reasons.length === 0,
        isDisposable,
        isAlias: isAlias(address.local),
        isTypo: suggestion !== undefined,
        isPlusAddressed: isPlusAddressed(address.local),
        isPersonalEmail: isPersonalDomain(address.domain),
        ...dns,
        reasons,
        ...(suggestion ? { suggestion } : {}),
      };
    },
  };
}

/** The activity, also called directly by `POST /v1/verify`. */
export function verifyEmail(deps: { runtime: { verifier: Verifier } }, email: string): Promise<VerificationResult> {
  return deps.runtime.verifier.verify(email);
}
