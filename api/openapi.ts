import { z } from 'zod';
import type { RouteDef } from './route';
import { FilterOperatorsByKind } from './schemas/filters';
import { ConsentSources } from './schemas/consentSources';

type Json = Record<string, any>;

export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
}

// The envelope is built by code in middleware/errors.ts, not parsed anywhere, so this is its only schema.
const ErrorEnvelope = z.object({
  success: z.literal(false),
  error: z.object({
    code: z.string().describe('machine-readable, e.g. VALIDATION_ERROR'),
    message: z.string(),
    statusCode: z.number().int(),
    requestId: z.string().describe('also sent as the X-Request-Id header'),
    errors: z
      .array(z.object({ field: z.string(), message: z.string(), code: z.string(), received: z.unknown().optional(), stepId: z.string().optional() }))
      .optional(),
    details: z.record(z.string(), z.unknown()).optional(),
    suggestion: z.string().optional(),
  }),
  timestamp: z.string(),
});
const FlatError = z.object({ error: z.string() });

const SECURITY: Record<RouteDef['auth'], Json[]> = {
  none: [],
  // Or the dashboard's session cookie with X-Project-Id (api/middleware/auth.ts projectFromSession).
  secret: [{ secretKey: [] }, { session: [], projectId: [] }],
  public: [{ publicKey: [] }],
  session: [{ session: [] }],
};

const PATH_PARAM = /:([A-Za-z0-9_]+)/g;

export const toOpenApiPath = (path: string) => path.replace(PATH_PARAM, '{$1}');

/** A schema's shape for comparison: zod closes objects (`additionalProperties: false`) in responses only, which types ignore. */
const shapeOf = (def: unknown): string => JSON.stringify(def, (key, value) => (key === 'additionalProperties' && value === false ? undefined : value));

/** The `$defs` names a schema refers to. */
const refsOf = (node: unknown): string[] =>
  Array.isArray(node)
    ? node.flatMap(refsOf)
    : node && typeof node === 'object'
      ? Object.entries(node).flatMap(([k, v]) => (k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/') ? [v.slice(8)] : refsOf(v)))
      : [];

/** A schema with its `#/$defs/<name>` refs pointing at `#/components/schemas/<rename(name)>`. */
function rewriteRefs(node: unknown, rename: (name: string) => string): any {
  if (Array.isArray(node)) return node.map((n) => rewriteRefs(n, rename));
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/') ? `#/components/schemas/${rename(v.slice(8))}` : rewriteRefs(v, rename);
  }
  return out;
}

/**
 * Converts zod schemas and hoists their `$defs` (recursive or `.meta({ id })` schemas) into
 * components, because a `#/$defs/…` ref inside an embedded schema would resolve against the
 * document root and dangle.
 */
class SchemaSink {
  readonly components: Record<string, Json> = {};

  convert(schema: z.ZodType, io: 'input' | 'output', owner: string): Json {
    const { $schema: _ignored, $defs, ...root } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Json;
    if (!$defs) return root;
    const defs = $defs as Record<string, Json>;
    const anonymous = (name: string) => name.startsWith('__schema');
    // A named schema whose request shape differs from its response shape (defaults make fields optional
    // in a request), or that holds one that does, is `<id>Input` in requests: `<id>` is always the
    // response shape whatever the routes' order (the dashboard reads a document as `EmailDocument`).
    const outputDefs = io === 'input' ? (((z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as Json).$defs ?? {}) as Record<string, Json>) : {};
    const differs = new Set(Object.keys(defs).filter((n) => io === 'input' && !anonymous(n) && shapeOf(outputDefs[n]) !== shapeOf(defs[n])));
    for (let grew = true; grew; ) {
      grew = false;
      for (const n of Object.keys(defs)) {
        if (io === 'input' && !anonymous(n) && !differs.has(n) && refsOf(defs[n]).some((r) => differs.has(r))) grew = Boolean(differs.add(n));
      }
    }
    const base = (n: string) => (anonymous(n) ? `${owner}_${n.replace(/^_+/, '')}` : differs.has(n) ? `${n}Input` : n);
    const renames = new Map<string, string>();
    for (const [name, def] of Object.entries(defs)) renames.set(name, this.claim(base(name), shapeOf(rewriteRefs(def, base))));
    const rename = (n: string) => renames.get(n)!;
    for (const [from, to] of renames) this.components[to] = rewriteRefs(defs[from], rename);
    return rewriteRefs(root, rename);
  }

  /** Each component's shape (refs by unsuffixed name), to compare a later claim with. */
  private readonly claimed = new Map<string, string>();

  /** Same id and same shape share a component; a different shape under a taken id gets a suffix. */
  private claim(name: string, shape: string): string {
    let candidate = name;
    for (let i = 2; this.claimed.has(candidate) && this.claimed.get(candidate) !== shape; i++) candidate = `${name}_${i}`;
    this.claimed.set(candidate, shape);
    return candidate;
  }
}

function operationId(def: RouteDef): string {
  const words = def.path.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return def.method + words.map((w) => w[0].toUpperCase() + w.slice(1)).join('');
}

function parameters(def: RouteDef, sink: SchemaSink, opId: string): Json[] {
  const out: Json[] = [];
  const pathSchema = def.params ? sink.convert(def.params, 'input', opId) : {};
  for (const [, name] of def.path.matchAll(PATH_PARAM)) {
    const schema = pathSchema.properties?.[name] ?? { type: 'string' };
    out.push({ name, in: 'path', required: true, schema, ...(schema.description ? { description: schema.description } : {}) });
  }
  if (def.query) {
    const q = sink.convert(def.query, 'input', opId);
    const required = new Set<string>(q.required ?? []);
    for (const [name, schema] of Object.entries((q.properties ?? {}) as Record<string, Json>)) {
      out.push({ name, in: 'query', required: required.has(name), schema, ...(schema.description ? { description: schema.description } : {}) });
    }
  }
  return out;
}

/** Text bodies are strings; images and other bytes are binary strings. */
const nonJsonBody = (contentType: string): Json =>
  /^(text\/|application\/(javascript|xml))/.test(contentType) ? { type: 'string' } : { type: 'string', format: 'binary' };

const envelopeRef = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
});

function responses(def: RouteDef, sink: SchemaSink, opId: string): Json {
  const out: Json = {};
  const keyed = def.auth === 'secret' || def.auth === 'public';
  if (def.auth !== 'none') out[401] = envelopeRef(keyed ? 'missing or unknown key (UNAUTHORIZED), wrong key type (INVALID_API_KEY)' : 'not signed in');
  if (keyed)
    out[403] = envelopeRef(
      `project disabled or not allowed; INSUFFICIENT_SCOPE for a named API key without the \`${def.scope ?? (def.auth === 'public' ? 'track' : 'full')}\` scope`,
    );
  if (def.params) out[404] = envelopeRef('unknown resource');
  if (def.query || def.body) out[400] = envelopeRef(def.body ? 'malformed body or bad query value' : 'bad query value');
  if (def.body) {
    out[413] = envelopeRef('request body too large');
    if (def.validationErrors === 'flat') {
      out[400] = {
        description: 'validation failed (flat body)',
        content: { 'application/json': { schema: { oneOf: [{ $ref: '#/components/schemas/ErrorEnvelope' }, { $ref: '#/components/schemas/FlatError' }] } } },
      };
    } else {
      out[422] = envelopeRef('validation failed; error.errors lists the fields');
    }
  }
  if (keyed && !def.noRateLimit) out[429] = envelopeRef('rate limit exceeded; see Retry-After');
  if (def.role)
    out[403] = envelopeRef(
      `${out[403] ? `${out[403].description}; ` : ''}FORBIDDEN with the session cookie: a role without \`${def.role}\` (docs/roles.md), the attempt audited as access.denied`,
    );
  out[500] = envelopeRef('unexpected error');

  for (const [status, r] of Object.entries(def.responses ?? {})) {
    const code = Number(status);
    if (r.schema) {
      // A JSON answer that can also come as a download (a CSV export of the same list) lists both media types.
      const others = [r.contentType ?? []].flat().filter((type) => type !== 'application/json');
      out[status] = {
        description: r.description,
        content: {
          'application/json': { schema: sink.convert(r.schema, 'output', opId) },
          ...Object.fromEntries(others.map((type) => [type, { schema: nonJsonBody(type) }])),
        },
      };
    } else if (r.contentType)
      out[status] = { description: r.description, content: Object.fromEntries([r.contentType].flat().map((type) => [type, { schema: nonJsonBody(type) }])) };
    else out[status] = code >= 400 && code < 500 ? envelopeRef(r.description) : { description: r.description };
  }
  // Every route declares its success (test/unit/routeResponses.test.ts); a redirect-only route gets no invented 200.
  if (!Object.keys(out).some((s) => /^[23]/.test(s))) out[200] = { description: 'success' };
  return out;
}

function operation(def: RouteDef, sink: SchemaSink): Json {
  const opId = operationId(def);
  const op: Json = { operationId: opId, summary: def.summary, tags: [def.tag] };
  const params = parameters(def, sink, opId);
  if (params.length) op.parameters = params;
  if (def.body) {
    const media = def.multipart ? 'multipart/form-data' : 'application/json';
    op.requestBody = { required: true, content: { [media]: { schema: sink.convert(def.body, 'input', opId) } } };
  }
  op.responses = responses(def, sink, opId);
  op.security = SECURITY[def.auth];
  // What a successful call writes to the audit log (docs/api.md "Audit log").
  if (def.audit !== undefined) op['x-audit-actions'] = typeof def.audit === 'string' ? [def.audit] : [...def.audit];
  return op;
}

function build(routes: RouteDef[], info: OpenApiInfo): Json {
  const sink = new SchemaSink();
  const paths: Json = {};
  for (const def of routes) {
    const p = toOpenApiPath(def.path);
    paths[p] ??= {};
    paths[p][def.method] = operation(def, sink);
  }
  const errorSchemas = {
    ErrorEnvelope: sink.convert(ErrorEnvelope, 'output', 'ErrorEnvelope'),
    FlatError: sink.convert(FlatError, 'output', 'FlatError'),
  };
  // Not the shape of any body: tables clients read (the dashboard's filter builder, scripts/webTypes.ts; its consent source words).
  const tables = {
    FilterOperatorsByKind: sink.convert(FilterOperatorsByKind, 'output', 'FilterOperatorsByKind'),
    ConsentSources: sink.convert(ConsentSources, 'output', 'ConsentSources'),
  };
  return {
    openapi: '3.1.0',
    info,
    tags: [...new Set(routes.map((r) => r.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: { ...sink.components, ...errorSchemas, ...tables },
      securitySchemes: {
        secretKey: { type: 'http', scheme: 'bearer', description: 'Project secret key (sk_…), server side only' },
        publicKey: { type: 'http', scheme: 'bearer', description: 'Project public key (pk_…), for /v1/track' },
        session: { type: 'apiKey', in: 'cookie', name: 'token', description: 'Dashboard session set by /auth/login or /auth/signup' },
        projectId: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Project-Id',
          description: 'With the session cookie on a secret-key route: the id of a project the user is a member of',
        },
      },
    },
  };
}

// Routes are fixed once the process has loaded them; converting every schema per request would be waste.
const cache = new WeakMap<RouteDef[], { key: string; doc: Json }>();

/** The OpenAPI 3.1 document, derived from the same zod schemas the router validates with. */
export function buildOpenApi(routes: RouteDef[], info: OpenApiInfo): Json {
  const key = JSON.stringify(info);
  const hit = cache.get(routes);
  if (hit && hit.key === key) return hit.doc;
  const doc = build(routes, info);
  cache.set(routes, { key, doc });
  return doc;
}
