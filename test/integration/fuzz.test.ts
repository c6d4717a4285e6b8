import crypto from 'node:crypto';
import { z } from 'zod';
import { startHarness, createProjectFixture, Harness, ProjectFixture } from '../helpers/harness';
import { allRoutes } from '../../api/routes';
import type { RouteDef } from '../../api/route';

/**
 * A route fuzzer that needs no upkeep: it asks the mounted router which routes exist, so a new
 * route is attacked the moment it is registered. Contract: no 5xx, and every 4xx is the spec's
 * envelope (or the flat `{ error }` where the route declares it).
 */

type Json = Record<string, any>;

interface Target {
  method: string;
  path: string;
  def?: RouteDef;
}

interface Probe {
  target: Target;
  kind: string;
  url: string;
  raw?: string;
  expectStatus?: number;
  /** The field (dotted path, or query parameter) the answer must refuse with code `invalid_string`. */
  expectRefused?: string;
}

/**
 * Hostile characters: those the API refuses anywhere (docs/api.md "Strings"), and those it must
 * store or refuse but never fail on. In query strings a lone surrogate cannot be written: its
 * WTF-8 bytes decode to U+FFFD, which is storable.
 */
const HOSTILE: Array<{ name: string; text: string; query: string; refused: boolean; refusedInQuery: boolean }> = [
  { name: 'NUL', text: '\u0000', query: '%00', refused: true, refusedInQuery: true },
  { name: 'lone surrogate', text: '\ud800', query: '%ED%A0%80', refused: true, refusedInQuery: false },
  { name: 'C0 control', text: '\u0001', query: '%01', refused: true, refusedInQuery: true },
  { name: 'escape', text: '\u001b', query: '%1B', refused: true, refusedInQuery: true },
  { name: 'bidi override', text: '\u202e', query: '%E2%80%AE', refused: false, refusedInQuery: false },
];

const ONE_MB = 1024 * 1024;
const HUGE = 'x'.repeat(100_000);
const BAD_QUERY = 'limit=-1&page=abc&pageSize=1e309&cursor=%%%&sort[]=x';

// Already URL-encoded path segments; `%00` stays raw so the router decodes it to a NUL byte.
const UNKNOWN_IDS: Record<string, () => string> = {
  'random uuid': () => crypto.randomUUID(),
  'prefixed id': () => 'cnt_doesnotexist',
  'sql injection': () => encodeURIComponent("'; DROP TABLE contacts;--"),
  '5000 chars': () => 'a'.repeat(5000),
  'nul byte': () => '%00',
};

function bytes(limit: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i.exec(limit.trim());
  if (!m) return Infinity;
  const unit = { b: 1, kb: 1024, mb: ONE_MB, gb: 1024 * ONE_MB }[(m[2] ?? 'b').toLowerCase() as 'b'];
  return Number(m[1]) * unit;
}

/** The body schema as JSON Schema: the fuzzer reads field names and types from the route itself. */
function bodySchema(def?: RouteDef): Json | undefined {
  if (!def?.body) return undefined;
  return z.toJSONSchema(def.body, { io: 'input', unrepresentable: 'any' }) as Json;
}

function resolve(s: Json | undefined, root: Json): Json {
  if (s?.$ref?.startsWith('#/$defs/')) return root.$defs?.[s.$ref.slice(8)] ?? {};
  return s ?? {};
}

/** A value the schema probably accepts, so probes get past validation into handlers. */
function sample(node: Json | undefined, root: Json, depth = 0, key = ''): unknown {
  const s = resolve(node, root);
  if (depth > 5) return null;
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  if (s.default !== undefined) return s.default;
  const alt = s.anyOf ?? s.oneOf ?? s.allOf;
  if (alt) return sample(alt[0], root, depth + 1);
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'string':
      // Field names stand in for formats that live in transforms, which JSON Schema cannot show.
      if (s.format === 'email' || /email/i.test(key)) return `fuzz-${crypto.randomBytes(4).toString('hex')}@example.test`;
      if (s.format === 'uuid') return crypto.randomUUID();
      if (s.format === 'date-time') return new Date().toISOString();
      if (s.format === 'uri' || s.format === 'url' || /url$/i.test(key)) return 'https://example.test/';
      if (s.format === 'hostname' || /domain/i.test(key)) return `fuzz-${crypto.randomBytes(4).toString('hex')}.example.test`;
      return 'x'.repeat(Math.min(Math.max(s.minLength ?? 1, 1), s.maxLength ?? 1));
    case 'integer':
    case 'number':
      return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array':
      return Array.from({ length: s.minItems ?? 0 }, () => sample(s.items, root, depth + 1));
    case 'object': {
      const out: Json = {};
      for (const key of s.required ?? []) out[key] = sample(s.properties?.[key], root, depth + 1, key);
      return out;
    }
    default:
      return 'x';
  }
}

function wrongValue(node: Json | undefined, root: Json): unknown {
  const s = resolve(node, root);
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (type === 'string') return 12345;
  if (type === 'number' || type === 'integer') return 'not-a-number';
  if (type === 'boolean') return 'maybe';
  if (type === 'array') return { not: 'an array' };
  if (type === 'object') return 'not-an-object';
  return [[{}]];
}

function hugeStrings(value: unknown): unknown {
  if (typeof value === 'string') return HUGE;
  if (Array.isArray(value)) return value.length ? value.map(hugeStrings) : [HUGE];
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, hugeStrings(v)]));
  return value;
}

type FieldPath = Array<string | number>;

/**
 * Every place the schema takes a string, as paths into the body: properties, array items, the
 * alternatives of unions, and for open objects (records such as contact `data`) a key, a value
 * and a nested value. Recursive schemas (filter trees) stop at a few levels.
 */
function stringPaths(node: Json | undefined, root: Json, path: FieldPath = [], depth = 0, out = new Map<string, { path: FieldPath; key: boolean }>()) {
  const s = resolve(node, root);
  if (depth > 6) return out;
  const add = (p: FieldPath, key = false) => out.set(`${key ? 'key:' : ''}${p.join('.')}`, { path: p, key });
  for (const alt of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) stringPaths(alt, root, path, depth + 1, out);
  const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  if (types.includes('string') && path.length) add(path);
  if (types.includes('array') && s.items) stringPaths(s.items, root, [...path, 0], depth + 1, out);
  if (types.includes('object') || s.properties) {
    for (const [k, child] of Object.entries<Json>(s.properties ?? {})) stringPaths(child, root, [...path, k], depth + 1, out);
    if ((s.additionalProperties && typeof s.additionalProperties === 'object') || s.additionalProperties === true) {
      add(path, true);
      add([...path, 'fuzzKey']);
      add([...path, 'fuzzKey', 'nested']);
    }
  }
  // `unknown` values (unrepresentable → any) may be strings too.
  if (!types.length && !s.anyOf && !s.oneOf && !s.allOf && !s.const && !s.enum && path.length) add(path);
  return out;
}

function withValueAt(body: unknown, path: FieldPath, value: unknown): unknown {
  const out = structuredClone(body && typeof body === 'object' ? body : {}) as Json;
  let node: Json = out;
  path.forEach((step, i) => {
    if (i === path.length - 1) {
      node[step] = value;
      return;
    }
    const next = node[step];
    if (!next || typeof next !== 'object') node[step] = typeof path[i + 1] === 'number' ? [] : {};
    node = node[step];
  });
  return out;
}

/** A probe per string field and per query parameter of the route's own schemas, for each hostile character. */
function hostileProbes(target: Target, basePath: string, schema: Json | undefined, good: unknown): Probe[] {
  const { def } = target;
  const probes: Probe[] = [];
  if (schema && !def?.multipart) {
    for (const { path, key } of stringPaths(schema, schema).values()) {
      const field = path.join('.') || '(root)';
      for (const h of HOSTILE) {
        const text = h.text;
        const body = key ? withValueAt(good, path, { [`k${text}`]: 'v' }) : withValueAt(good, path, `x${text}y`);
        probes.push({
          target,
          kind: `${h.name} in ${key ? 'a key of ' : ''}${field}`,
          url: basePath,
          raw: JSON.stringify(body),
          expectRefused: h.refused ? field : undefined,
        });
      }
    }
  }
  const query = def?.query ? (z.toJSONSchema(def.query, { io: 'input', unrepresentable: 'any' }) as Json) : undefined;
  for (const name of Object.keys(query?.properties ?? {})) {
    for (const h of HOSTILE) {
      const raw = schema ? JSON.stringify(good) : undefined;
      probes.push({
        target,
        kind: `${h.name} in query ${name}`,
        url: `${basePath}?${encodeURIComponent(name)}=x${h.query}y`,
        raw,
        expectRefused: h.refusedInQuery ? name : undefined,
      });
    }
  }
  return probes;
}

/** Unknown ids the route's params schema accepts, so hostile probes reach body and query validation instead of a 404. */
function acceptedParamsPath(target: Target): string {
  const schema = target.def?.params;
  const names = [...target.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);
  const candidates = [crypto.randomUUID(), 'cnt_doesnotexist', 'email', 'fuzz'];
  const all = (c: string) => Object.fromEntries(names.map((n) => [n, c]));
  const value = candidates.find((c) => !schema || schema.safeParse(all(c)).success) ?? candidates[0];
  return fillPath(target.path, () => encodeURIComponent(value));
}

function fillPath(path: string, value: () => string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, () => value());
}

function probesFor(target: Target): Probe[] {
  const { def, path } = target;
  const method = target.method.toLowerCase();
  const schema = bodySchema(def);
  const takesBody = !!def?.body || ['post', 'put', 'patch'].includes(method);
  const good = schema ? sample(schema, schema) : {};
  const goodRaw = takesBody ? JSON.stringify(good) : undefined;
  // Real ids never appear: probes only name unknown ones, so nothing of the fixture can be deleted or rotated.
  const basePath = fillPath(path, UNKNOWN_IDS['random uuid']);
  const probes: Probe[] = [{ target, kind: 'plausible body', url: basePath, raw: goodRaw }];
  probes.push({ target, kind: 'bad query', url: `${basePath}?${BAD_QUERY}`, raw: goodRaw });
  if (path.includes(':')) {
    for (const [kind, value] of Object.entries(UNKNOWN_IDS)) probes.push({ target, kind: `param: ${kind}`, url: fillPath(path, value), raw: goodRaw });
  }
  probes.push(...hostileProbes(target, acceptedParamsPath(target), schema, good));
  if (!takesBody) return probes;

  const props = Object.keys(schema?.properties ?? {});
  const wrong = props.length ? Object.fromEntries(props.map((k) => [k, wrongValue(schema!.properties[k], schema!)])) : { a: [[{}]] };
  const huge = good && typeof good === 'object' && Object.keys(good).length ? hugeStrings(good) : { a: HUGE };
  const bodies: Record<string, string> = {
    'malformed json': '{"a":',
    'array body': '[]',
    'string body': '"str"',
    'number body': '42',
    'null body': 'null',
    'wrong-typed fields': JSON.stringify(wrong),
    'huge strings': JSON.stringify(huge),
  };
  for (const [kind, raw] of Object.entries(bodies)) probes.push({ target, kind, url: basePath, raw });

  const limit = def?.multipart ? Infinity : def?.rawJsonBody ? def.rawJsonBody.limitBytes : bytes(def?.bodyLimit ?? '1mb');
  probes.push({
    target,
    kind: 'oversized body',
    url: basePath,
    raw: JSON.stringify({ a: 'x'.repeat(ONE_MB + 64 * 1024) }),
    // Only where the route keeps the default JSON limit is 413 certain; bigger limits just must not fail.
    expectStatus: limit <= ONE_MB ? 413 : undefined,
  });
  return probes;
}

function envelopeProblem(res: { status: number; body: any; headers: any }): string | null {
  const b = res.body;
  if (!b || typeof b !== 'object') return 'body is not JSON';
  if (b.success !== false) return 'success is not false';
  const e = b.error;
  if (!e || typeof e !== 'object') return 'error is missing';
  if (typeof e.code !== 'string') return 'error.code is not a string';
  if (typeof e.message !== 'string') return 'error.message is not a string';
  if (e.statusCode !== res.status) return `error.statusCode ${e.statusCode} differs from status`;
  if (typeof e.requestId !== 'string' || e.requestId !== res.headers['x-request-id']) return 'error.requestId differs from X-Request-Id';
  if (typeof b.timestamp !== 'string') return 'timestamp is missing';
  return null;
}

/** A refused string answers 422 (400 in the query) naming the field with `invalid_string`, or the flat 400 naming it. */
function refusalProblem(probe: Probe, res: { status: number; body: any }): string | null {
  const field = probe.expectRefused!;
  if (probe.target.def?.validationErrors === 'flat') {
    return res.status === 400 && isFlat(res.body) && res.body.error.includes(field) ? null : `expected the flat 400 naming ${field}`;
  }
  const inQuery = probe.kind.includes(' in query ');
  const status = inQuery ? 400 : 422;
  const code = inQuery ? 'BAD_REQUEST' : 'VALIDATION_ERROR';
  const named = res.body?.error?.errors?.some((e: any) => e.field === field && e.code === 'invalid_string');
  return res.status === status && res.body?.error?.code === code && named ? null : `expected ${status} ${code} with an invalid_string error on ${field}`;
}

const isFlat = (body: any) => body && typeof body === 'object' && typeof body.error === 'string' && Object.keys(body).length === 1;

function judge(probe: Probe, res: { status: number; body: any; headers: any }): string | null {
  const { def, path } = probe.target;
  if (probe.expectStatus && res.status !== probe.expectStatus) return `expected ${probe.expectStatus}`;
  if (probe.expectRefused !== undefined) {
    const problem = refusalProblem(probe, res);
    if (problem) return problem;
  }
  if (res.status === 503 && path === '/health') return null;
  const stub = res.status === 501 && res.body?.error?.code === 'NOT_IMPLEMENTED';
  if (res.status >= 500 && !stub) return 'server error';
  if (res.status < 400) return null;
  if (def?.validationErrors === 'flat' && isFlat(res.body)) return null;
  // The pages our emails link to answer people, with an HTML page saying what went wrong; so do the
  // tracked links and pixels of our emails (a reader's browser opens them).
  if ((def?.tag === 'pages' || def?.tag === 'tracking') && /^text\/html/.test(res.headers['content-type'] ?? '')) return null;
  return envelopeProblem(res);
}

let h: Harness;
let p: ProjectFixture;
const serverLogs = new Map<string, string>();

beforeAll(async () => {
  // The battery sends more requests than one project may make per minute; 429s would hide the real answers.
  h = await startHarness({ env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
  p = await createProjectFixture(h, 'fuzz');
  (h.deps.log as any).error = (obj: any) => {
    if (obj?.requestId)
      serverLogs.set(
        obj.requestId,
        String(obj.err?.stack ?? obj.err ?? '')
          .split('\n')
          .slice(0, 6)
          .join('\n'),
      );
  };
});
afterAll(() => h?.stop());

function enumerate(): Target[] {
  const targets: Target[] = [];
  for (const layer of h.built.router.stack) {
    if (typeof layer.path !== 'string') continue;
    for (const method of layer.methods) {
      if (method === 'HEAD') continue;
      const def = allRoutes.find((r) => r.method.toUpperCase() === method && r.path === layer.path);
      targets.push({ method, path: layer.path, def });
    }
  }
  return targets;
}

async function send(probe: Probe, cookie = p.cookie) {
  const { method, def, path } = probe.target;
  const key = def?.auth === 'public' || path.startsWith('/v1/track') ? p.publicKey : p.secretKey;
  let req = (h.http as any)[method.toLowerCase()](probe.url).set('Authorization', `Bearer ${key}`).set('Cookie', cookie);
  if (probe.raw !== undefined) req = req.set('Content-Type', 'application/json').send(probe.raw);
  return req;
}

async function pool<T>(items: T[], size: number, work: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: size }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s);

describe('route fuzzer', () => {
  it('finds every route of allRoutes on the mounted router', () => {
    const targets = enumerate();
    const missing = allRoutes.filter((r) => !targets.some((t) => t.def === r)).map((r) => `${r.method.toUpperCase()} ${r.path}`);
    expect(missing).toEqual([]);
    expect(targets.length).toBeGreaterThanOrEqual(allRoutes.length);
  });

  it('answers every hostile request without a 5xx and with the error envelope', async () => {
    const targets = enumerate();
    // Deletions and key rotation go last, so a route that removes something shared cannot blind the others.
    const late = (t: Target) => t.method === 'DELETE' || /regenerate|rotate/.test(t.path);
    // Ending every session of a user would sign the fixture out under the other probes: these go
    // after all of them, one at a time, each with a session of its own user signed in just before.
    // Signing out (GET or POST /auth/logout) ends the cookie's own session on the server too.
    const endsSessions = (t: Target) => (t.method === 'POST' && t.path === '/auth/logout-all') || t.path === '/auth/logout';
    const rest = targets.filter((t) => !endsSessions(t));
    const probes = [...rest.filter((t) => !late(t)), ...rest.filter(late)].flatMap(probesFor);
    const sessionEnders = targets.filter(endsSessions).flatMap(probesFor);
    expect(sessionEnders.length).toBeGreaterThan(0);
    const other = await createProjectFixture(h, 'fuzz sessions');
    const failures: string[] = [];
    const probeOnce = async (probe: Probe, cookie?: string) => {
      const where = `${probe.target.method} ${probe.target.path} [${probe.kind}]`;
      let res: Awaited<ReturnType<typeof send>>;
      try {
        res = await send(probe, cookie);
      } catch (err) {
        failures.push(`${where}\n  request failed: ${(err as Error).message}`);
        return;
      }
      const problem = judge(probe, res);
      if (!problem) return;
      const stack = serverLogs.get(res.headers['x-request-id']);
      failures.push(
        `${where} → ${res.status}: ${problem}\n  url: ${clip(probe.url, 120)}\n  body: ${clip(res.text ?? '', 400)}` +
          (stack ? `\n  server: ${stack.replace(/\n/g, '\n    ')}` : ''),
      );
    };
    await pool(probes, 8, (probe) => probeOnce(probe));
    for (const probe of sessionEnders) {
      const login = await h.http.post('/auth/login').send({ email: other.email, password: 'correct horse battery' });
      await probeOnce(probe, (login.headers['set-cookie'] as unknown as string[])[0].split(';')[0]);
    }
    expect(probes.length).toBeGreaterThan(allRoutes.length);
    if (failures.length) throw new Error(`${failures.length} of ${probes.length} fuzz probes failed:\n\n${failures.join('\n\n')}`);
  }, 150_000);
});
