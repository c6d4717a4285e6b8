import { promises as dns } from 'node:dns';
import type { Config } from '../lib/config';

export interface MxRecord {
  exchange: string;
  priority: number;
}

/** DNS lookups that answer "nothing there" with an empty array and throw only when DNS itself failed. */
export interface DnsLookup {
  txt(name: string): Promise<string[]>;
  mx(name: string): Promise<MxRecord[]>;
  a(name: string): Promise<string[]>;
  aaaa(name: string): Promise<string[]>;
  /** The names `name` is an alias of (its CNAME record's target), not followed further. */
  cname(name: string): Promise<string[]>;
}

/** DNS could not answer (timeout, SERVFAIL, refused): unknown, which is not the same as absent. */
export class DnsLookupError extends Error {
  constructor(
    readonly hostname: string,
    readonly rrtype: string,
    readonly code: string,
  ) {
    super(`DNS ${rrtype} lookup of ${hostname} failed (${code})`);
    this.name = 'DnsLookupError';
  }
}

// Answers that mean the name or the record type does not exist.
const ABSENT = new Set([dns.NOTFOUND, dns.NODATA, 'NXDOMAIN', dns.BADNAME]);

// Short enough that a dead resolver fails an API request in seconds, not the c-ares default of ~20 s.
const TIMEOUT_MS = 2000;
const TRIES = 2;

async function lookup<T>(name: string, rrtype: string, run: () => Promise<T[]>): Promise<T[]> {
  try {
    return await run();
  } catch (err: any) {
    if (ABSENT.has(err?.code)) return [];
    throw new DnsLookupError(name, rrtype, err?.code ?? String(err));
  }
}

/** Resolvers honour DNS_SERVERS ("host:port" list) so tests and air-gapped installs can point at their own DNS. */
export function createResolver(config: Pick<Config, 'dnsServers'>): DnsLookup {
  const resolver = new dns.Resolver({ timeout: TIMEOUT_MS, tries: TRIES });
  if (config.dnsServers?.length) resolver.setServers(config.dnsServers);
  return {
    // A TXT record may be split into 255-octet strings; they form one value.
    txt: (name) => lookup(name, 'TXT', async () => (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''))),
    mx: (name) => lookup(name, 'MX', async () => (await resolver.resolveMx(name)).map(({ exchange, priority }) => ({ exchange, priority }))),
    a: (name) => lookup(name, 'A', () => resolver.resolve4(name)),
    aaaa: (name) => lookup(name, 'AAAA', () => resolver.resolve6(name)),
    cname: (name) => lookup(name, 'CNAME', () => resolver.resolveCname(name)),
  };
}
