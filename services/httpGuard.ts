import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { DnsLookup } from './dns';

/**
 * The WEBHOOK step's HTTP call, guarded against server-side request forgery: the host is resolved
 * with the project's resolver, every address it resolves to must be public, the port must be a web
 * port (ALLOWED_PORTS), the connection goes to the address that was checked (a second DNS answer
 * cannot swap it), and each redirect hop is checked the same way. WEBHOOK_ALLOW_PRIVATE lifts the
 * address and port rules (development only).
 */

export const WEBHOOK_LIMITS = { timeoutMs: 10_000, maxRedirects: 3, maxResponseBytes: 256 * 1024 } as const;

/** The target is not allowed; retrying cannot change that. */
export class WebhookRefused extends Error {
  override name = 'WebhookRefused';
}

// ───────────────────────────── address rules ─────────────────────────────

const V4_BLOCKED: [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified ("this network")'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignment'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved or broadcast'],
];

const V6_BLOCKED: [string, number, string][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  // RFC 8215 local-use NAT64: where the IPv4 address sits depends on the operator's prefix length, so the whole /48 is refused.
  ['64:ff9b:1::', 48, 'local-use NAT64'],
  ['100::', 64, 'discard-only'],
  ['2001::', 23, 'IETF protocol assignment'],
  ['2001:db8::', 32, 'documentation'],
  ['3fff::', 20, 'documentation'],
  ['fc00::', 7, 'unique local (private)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

function v4ToBigInt(ip: string): bigint {
  return ip.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

/** Eight 16-bit groups of an IPv6 address (`::` and a trailing dotted quad expanded). */
function v6Groups(ip: string): number[] {
  let text = ip.toLowerCase();
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad) {
    const n = Number(v4ToBigInt(quad[1]));
    text = `${text.slice(0, -quad[1].length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const parse = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const h = parse(head);
  const t = parse(tail);
  return tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill(0), ...t];
}

const groupsToBigInt = (g: number[]) => g.reduce((acc, x) => (acc << 16n) | BigInt(x), 0n);

function inCidr(value: bigint, base: bigint, prefix: number, bits: number): boolean {
  const shift = BigInt(bits - prefix);
  return value >> shift === base >> shift;
}

/**
 * Cloud metadata and platform endpoints, named apart because they hold credentials or configuration:
 * AWS, GCP, Azure IMDS, DigitalOcean, … (169.254.169.254), Azure's WireServer (168.63.129.16: a
 * public address, so only this list refuses it), Alibaba Cloud (100.100.100.200), Oracle Cloud
 * (192.0.0.192) and AWS's IPv6 endpoint (fd00:ec2::254).
 */
const METADATA_V4 = new Set(['169.254.169.254', '168.63.129.16', '100.100.100.200', '192.0.0.192'].map(v4ToBigInt));
const METADATA_V6 = groupsToBigInt(v6Groups('fd00:ec2::254'));
const METADATA = 'cloud metadata endpoint';

function v4Problem(ip: string): string | null {
  const v = v4ToBigInt(ip);
  if (METADATA_V4.has(v)) return METADATA;
  for (const [base, prefix, label] of V4_BLOCKED) if (inCidr(v, v4ToBigInt(base), prefix, 32)) return label;
  return null;
}

const groupsToV4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;

/** The IPv4 address an IPv6 form carries, or null for a plain IPv6 address. */
function embeddedV4(g: number[]): string | null {
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  // ::ffff:a.b.c.d (IPv4-mapped)
  if (zero(0, 5) && g[5] === 0xffff) return groupsToV4(g[6], g[7]);
  // ::ffff:0:a.b.c.d (IPv4-translated, RFC 2765)
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return groupsToV4(g[6], g[7]);
  // 64:ff9b::a.b.c.d (NAT64 well-known prefix)
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return groupsToV4(g[6], g[7]);
  // 2002:AABB:CCDD::/48 (6to4)
  if (g[0] === 0x2002) return groupsToV4(g[1], g[2]);
  // ::a.b.c.d (IPv4-compatible; ::1 and :: are themselves)
  if (zero(0, 6) && (g[6] || g[7] > 1)) return groupsToV4(g[6], g[7]);
  return null;
}

/**
 * Why an address may not be called (`null` when it is a public unicast address). IPv6 forms that
 * carry an IPv4 address (mapped ::ffff:0:0/96, translated ::ffff:0:0:0/96, NAT64 64:ff9b::/96,
 * 6to4, IPv4-compatible) are judged by that address: a kernel or a NAT64 gateway turns them into it.
 */
export function addressProblem(address: string): string | null {
  const ip = address.replace(/%.*$/, '');
  const family = net.isIP(ip);
  if (family === 0) return 'not an IP address';
  if (family === 4) return v4Problem(ip);
  const g = v6Groups(ip);
  if (groupsToBigInt(g) === METADATA_V6) return METADATA;
  const embedded = embeddedV4(g);
  if (embedded) {
    const p = v4Problem(embedded);
    return p ? `${p} (IPv4 ${embedded} inside IPv6)` : null;
  }
  const v = groupsToBigInt(g);
  for (const [base, prefix, label] of V6_BLOCKED) if (inCidr(v, groupsToBigInt(v6Groups(base)), prefix, 128)) return label;
  return null;
}

// ───────────────────────────── port rule ─────────────────────────────

/**
 * The ports a webhook may call: the web's (80, 443) and their usual alternates (8080, 8443). A
 * public host's other ports are its databases, caches, mail and admin services, which an attacker
 * could otherwise probe or feed through our requests.
 */
export const ALLOWED_PORTS: readonly number[] = [80, 443, 8080, 8443];

/** Why a URL's port may not be called (`null` when it may); an absent port is the scheme's own. */
export function portProblem(url: URL): string | null {
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return ALLOWED_PORTS.includes(port) ? null : `port ${port} is not one webhooks may call (${ALLOWED_PORTS.join(', ')})`;
}

// ───────────────────────────── guarded request ─────────────────────────────

export interface GuardedRequest {
  url: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  headers: Record<string, string>;
  body?: string;
}

export interface GuardOptions {
  resolver: Pick<DnsLookup, 'a' | 'aaaa'>;
  allowPrivate: boolean;
  /** Tests only: lets one otherwise refused address through (a redirect needs a first hop that passes). */
  allowAddress?: (ip: string) => boolean;
  /** Tests only: lets an otherwise refused port through (a loopback test server listens on a random one). */
  allowPort?: (port: number) => boolean;
  timeoutMs?: number;
  maxRedirects?: number;
  maxResponseBytes?: number;
}

export interface GuardedResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  truncated: boolean;
  url: string;
}

/** The checked address to connect to, or a WebhookRefused naming the reason. */
async function checkedAddress(url: URL, opts: GuardOptions): Promise<{ address: string; family: 4 | 6 }> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new WebhookRefused(`only http and https URLs may be called, not ${url.protocol}`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (net.isIP(host)) addresses = [host];
  else {
    const [v4, v6] = await Promise.all([opts.resolver.a(host), opts.resolver.aaaa(host)]);
    addresses = [...v4, ...v6];
    if (!addresses.length) throw new WebhookRefused(`${host} does not resolve to any address`);
  }
  if (!opts.allowPrivate) {
    // Every answer must pass: otherwise the answer we happened to pick would decide.
    for (const address of addresses) {
      const problem = addressProblem(address);
      if (problem && !opts.allowAddress?.(address)) {
        // A name's answer is not repeated: naming the address (or its kind) a hostname resolves to
        // would let anyone who can save a URL map the internal network's DNS through lastError and
        // step outputs. A literal address is the caller's own text, so it is named with its kind.
        throw new WebhookRefused(address === host ? `${host} is a ${problem} address` : `${host} resolves to a private address`);
      }
    }
    // After the addresses, so a private target is named as such whatever its port.
    const portRefusal = portProblem(url);
    if (portRefusal && !opts.allowPort?.(Number(url.port))) throw new WebhookRefused(portRefusal);
  }
  return { address: addresses[0], family: net.isIP(addresses[0]) as 4 | 6 };
}

function requestOnce(
  url: URL,
  target: { address: string; family: 4 | 6 },
  req: GuardedRequest,
  deadline: number,
  maxBytes: number,
): Promise<Omit<GuardedResponse, 'url'>> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const options: https.RequestOptions = {
      method: req.method,
      hostname: host,
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      headers: { ...req.headers, ...(req.body !== undefined ? { 'content-length': String(Buffer.byteLength(req.body)) } : {}) },
      agent: false,
      // The connection goes to the address checked above, whatever DNS would answer now.
      lookup: ((_name: string, opts: { all?: boolean }, cb: (...args: any[]) => void) =>
        opts?.all ? cb(null, [{ address: target.address, family: target.family }]) : cb(null, target.address, target.family)) as any,
      ...(url.protocol === 'https:' && !net.isIP(host) ? { servername: host } : {}),
    };
    const timer = setTimeout(
      () => request.destroy(new Error(`no complete answer within ${WEBHOOK_LIMITS.timeoutMs / 1000} s`)),
      Math.max(1, deadline - Date.now()),
    );
    const request = client.request(options, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      const finish = () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), truncated });
      };
      res.on('data', (chunk: Buffer) => {
        if (truncated) return;
        size += chunk.length;
        if (size > maxBytes) {
          truncated = true;
          res.destroy();
          finish();
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', finish);
      res.on('error', (err) => {
        if (!truncated) {
          clearTimeout(timer);
          reject(err);
        }
      });
    });
    request.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    request.end(req.body);
  });
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * One HTTP exchange under the SSRF rules, following up to `maxRedirects` redirects by hand (each
 * hop resolved and checked again). Throws WebhookRefused for a target the rules refuse.
 */
export async function guardedFetch(req: GuardedRequest, opts: GuardOptions): Promise<GuardedResponse> {
  const deadline = Date.now() + (opts.timeoutMs ?? WEBHOOK_LIMITS.timeoutMs);
  const maxRedirects = opts.maxRedirects ?? WEBHOOK_LIMITS.maxRedirects;
  let current = { ...req };
  let url = new URL(req.url);
  for (let hop = 0; ; hop++) {
    const target = await checkedAddress(url, opts);
    const res = await requestOnce(url, target, current, deadline, opts.maxResponseBytes ?? WEBHOOK_LIMITS.maxResponseBytes).catch((err: Error) => {
      // Socket errors name the connected address (`connect ECONNREFUSED 10.0.0.7:80`): say the host instead, as above.
      if (err?.message?.includes(target.address) && url.hostname !== target.address) err.message = err.message.split(target.address).join(url.hostname);
      throw err;
    });
    const location = res.headers.location;
    if (!REDIRECTS.has(res.status) || !location) return { ...res, url: url.toString() };
    if (hop >= maxRedirects) throw new WebhookRefused(`more than ${maxRedirects} redirects`);
    const next = new URL(location, url);
    // 303, and 301/302 after a POST as browsers do, continue as a GET without a body.
    const asGet = res.status === 303 || ((res.status === 301 || res.status === 302) && current.method !== 'GET');
    const headers = { ...current.headers };
    if (next.origin !== url.origin) {
      // Credentials meant for one site are not handed to the next.
      for (const name of Object.keys(headers)) if (/^(authorization|cookie|proxy-authorization)$/i.test(name)) delete headers[name];
    }
    if (asGet) for (const name of Object.keys(headers)) if (/^content-type$/i.test(name)) delete headers[name];
    current = { ...current, url: next.toString(), method: asGet ? 'GET' : current.method, headers, body: asGet ? undefined : current.body };
    url = next;
  }
}
