import fs from 'node:fs/promises';
import fsSync from 'node:fs';
import { uploadTempDir } from '../lib/storage';
import Router from '@koa/router';
import { koaBody } from 'koa-body';
import type { Middleware, Next } from 'koa';
import type { AppContext } from './context';
import type { Auth, Principal, RouteDef } from './route';
import { ApiError, FlatError, notFound, validationError } from './errors';
import { fieldErrors, firstMessage, safeParse } from './validation';
import { requestLanguage } from './language';
import { ownMessageIn } from '../lib/zodSentences';
import { apiKey, requireScope, session } from './middleware/auth';
import { idempotency } from './middleware/idempotency';
import { rawJsonBody } from './middleware/rawBody';
import { crossSiteGuard } from './middleware/crossSite';
import { publicCors, publicPreflight } from './middleware/cors';
import { nestedDeeperThan } from '../lib/json';
import { findRefusedText, refusedMessage } from '../lib/hostileText';
import { auditWitness, committedEntries, targetTypeOf, type AuditAction } from '../db/auditLog';
import { versionAuthor } from '../db/workflowVersions';
import { withWriteScope } from '../db/writeScope';
import { requestAuditor } from '../services/audit';
import { can } from '../db/projects';
import { refuseRole } from './projectAccess';

const DEFAULT_JSON_LIMIT = '1mb';
/** Far deeper than any valid request (filter trees stop at 5 levels, contact data at 5). */
const MAX_BODY_NESTING = 64;

function authFor(def: RouteDef) {
  switch (def.auth) {
    case 'secret':
      return [apiKey('secret', !def.noRateLimit, { multipart: !!def.multipart }), requireScope(def.scope ?? 'full')];
    case 'public':
      return [apiKey('public', !def.noRateLimit), requireScope(def.scope ?? 'track')];
    case 'session':
      return [session];
    default:
      return [];
  }
}

function multipartParser(maxFileSize: number) {
  const parsers = new Map<string, Middleware>();
  return (ctx: AppContext, next: Next) => {
    const dir = uploadTempDir(ctx.deps.config.dataDir);
    let parser = parsers.get(dir);
    if (!parser) {
      fsSync.mkdirSync(dir, { recursive: true });
      parser = koaBody({
        multipart: true,
        json: false,
        formidable: { maxFileSize, maxFiles: 1, allowEmptyFiles: false, uploadDir: dir },
        onError: (err: any) => {
          // formidable's own codes: 1009/1016 size limits, 1015 too many files (which it also marks 413).
          if (err?.code === 1015) throw new ApiError(400, 'BAD_REQUEST', 'Send exactly one file');
          if (err?.code === 1009 || err?.code === 1016 || err?.httpCode === 413) throw new ApiError(413, 'PAYLOAD_TOO_LARGE', 'Uploaded file is too large');
          throw new ApiError(400, 'BAD_REQUEST', 'Malformed multipart body');
        },
      }) as Middleware;
      parsers.set(dir, parser);
    }
    return parser(ctx, next);
  };
}

function bodyParser(def: RouteDef) {
  if (def.multipart) return multipartParser(def.multipart.maxFileSize);
  return koaBody({ jsonLimit: def.bodyLimit ?? DEFAULT_JSON_LIMIT, formLimit: '56kb', textLimit: '56kb', jsonStrict: false });
}

type ValidInput = { params: unknown; query: unknown; body: unknown };

/**
 * Validates params (bad → 404), query (bad → 400) and body (bad → 422, or the flat 400 where the spec
 * says). The field sentences speak the request's Accept-Language (en, fr or de; api/language.ts).
 */
function validate(def: RouteDef, ctx: AppContext): ValidInput {
  const input: ValidInput = { params: ctx.params ?? {}, query: ctx.query, body: undefined };
  const lang = requestLanguage(ctx);
  // A refusal's words depend on the header: a cache must not hand a French one to a German client.
  const words = () => {
    ctx.vary('Accept-Language');
    return lang;
  };
  if (def.params) {
    const r = safeParse(def.params, ctx.params ?? {});
    if (!r.success || findRefusedText(ctx.params ?? {})) throw notFound(def.resource ?? def.tag.replace(/s$/, '').replace(/^./, (c) => c.toUpperCase()));
    input.params = r.data;
  }
  if (def.query) {
    const refused = findRefusedText(ctx.query);
    if (refused) {
      if (def.validationErrors === 'flat') throw new FlatError(400, refusedMessage(refused));
      throw new ApiError(400, 'BAD_REQUEST', `Invalid query: ${refusedMessage(refused)}`, {
        errors: [{ field: refused.field, code: 'invalid_string', message: refusedMessage(refused) }],
      });
    }
    const r = safeParse(def.query, ctx.query, lang);
    if (!r.success) {
      if (def.validationErrors === 'flat') throw new FlatError(400, firstMessage(r.error, words()));
      throw new ApiError(400, 'BAD_REQUEST', `Invalid query: ${firstMessage(r.error, words())}`, { errors: fieldErrors(r.error, lang) });
    }
    input.query = r.data;
  }
  if (def.body) {
    // Recursive schemas (filter trees) would recurse as deep as the JSON does: refuse absurd nesting first.
    if (nestedDeeperThan(ctx.request.body, MAX_BODY_NESTING)) {
      const english = `the body nests more than ${MAX_BODY_NESTING} levels deep`;
      const l = words();
      const message = l === 'en' ? english : (ownMessageIn(english, [], l) ?? english);
      if (def.validationErrors === 'flat') throw new FlatError(400, message);
      throw validationError([{ field: '(root)', code: 'too_big', message }]);
    }
    // Every string and key of the body, however deep, before any schema sees it (lib/hostileText).
    const refused = findRefusedText(ctx.request.body);
    if (refused) {
      if (def.validationErrors === 'flat') throw new FlatError(400, refusedMessage(refused));
      throw validationError([{ field: refused.field, code: 'invalid_string', message: refusedMessage(refused) }]);
    }
    const raw = def.multipart ? { ...(ctx.request.body as object), files: ctx.request.files } : (ctx.request.body ?? {});
    const r = safeParse(def.bodyFor?.(ctx.deps) ?? def.body, raw, lang);
    if (!r.success) {
      if (def.validationErrors === 'flat') throw new FlatError(400, firstMessage(r.error, words()));
      throw validationError(fieldErrors(r.error, words()));
    }
    input.body = r.data;
  }
  return input;
}

/** Temporary upload files never outlive the request, whether it succeeded or failed validation. */
async function removeUploadsAfter(ctx: AppContext, next: Next) {
  try {
    await next();
  } finally {
    const files = Object.values(ctx.request.files ?? {}).flat() as Array<{ filepath?: string }>;
    await Promise.all(files.map((f) => (f.filepath ? fs.rm(f.filepath, { force: true }) : undefined)));
  }
}

/**
 * In tests (NODE_ENV=test, which jest sets, or `REPLY_CONTRACT_CHECK=1`) every 2xx JSON reply is
 * parsed by the schema its route declares for that status, strictly: a field the schema does not
 * name fails as a type mismatch does, so a reply can neither drift from its OpenAPI schema nor leak
 * a field nobody declared. Every integration test is then a contract test too. Off in production,
 * where it would only cost time.
 */
const checkReplies = process.env.REPLY_CONTRACT_CHECK === '1' || process.env.NODE_ENV === 'test';

/**
 * Keys of `sent` that parsing dropped from `parsed`: the fields the schema does not declare (zod
 * objects strip unknown keys; loose objects and records keep theirs, so they report none).
 */
export function undeclaredKeys(sent: unknown, parsed: unknown, at: string[] = []): string[] {
  if (Array.isArray(sent)) return Array.isArray(parsed) ? sent.flatMap((v, i) => undeclaredKeys(v, parsed[i], [...at, String(i)])) : [];
  if (!isPlainObject(sent) || !isPlainObject(parsed)) return [];
  return Object.keys(sent).flatMap((k) => (k in parsed ? undeclaredKeys(sent[k], parsed[k], [...at, k]) : [[...at, k].join('.')]));
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;

function contractBroken(def: RouteDef, ctx: AppContext, problems: string[]): never {
  const message = `${def.method.toUpperCase()} ${def.path} answered ${ctx.status} with a body its response schema refuses: ${problems.slice(0, 3).join('; ')}`;
  // The 500 envelope hides internal messages: the test output gets it here.
  process.stderr.write(`REPLY CONTRACT: ${message}\n`);
  throw new Error(message);
}

export function checkReply(def: RouteDef, ctx: AppContext): void {
  const body: unknown = ctx.body;
  if (ctx.status < 200 || ctx.status >= 300 || body === null || typeof body !== 'object' || Buffer.isBuffer(body) || typeof (body as any).pipe === 'function')
    return;
  const schema = def.responses?.[ctx.status]?.schema;
  if (!schema) contractBroken(def, ctx, [`no response schema declared for ${ctx.status}`]);
  // What the client receives: the JSON form (a Date is its ISO string there).
  const sent: unknown = JSON.parse(JSON.stringify(body));
  const r = schema.safeParse(sent);
  if (!r.success)
    contractBroken(
      def,
      ctx,
      r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`),
    );
  const extra = undeclaredKeys(sent, r.data);
  if (extra.length > 0)
    contractBroken(
      def,
      ctx,
      extra.map((k) => `${k}: not in the schema`),
    );
}

/** The actions a route declares it writes (`audit`), as a list. */
export const auditActionsOf = (def: RouteDef): readonly AuditAction[] =>
  def.audit === undefined ? [] : typeof def.audit === 'string' ? [def.audit] : def.audit;

/**
 * Under `AUDIT_CONTRACT_CHECK=1` (set with REPLY_CONTRACT_CHECK by the test run) a 2xx answer of a
 * route that declares `audit` must have committed an entry with one of its actions during the
 * request: `recordAudit` notes each entry it writes in the request's witness (db/auditLog.ts), and
 * the check finds them in the table, so an entry rolled back with its change does not count. A
 * route that says it audits and did not fails the request loudly, in every test that calls it.
 */
const checkAudits = process.env.AUDIT_CONTRACT_CHECK === '1';

async function checkAudited(def: RouteDef, ctx: AppContext, witness: { ids: string[]; unchanged?: string }): Promise<void> {
  if (ctx.status < 200 || ctx.status >= 300) return;
  // The handler said, by name, that this request changed nothing (services/audit.ts nothingChanged).
  if (witness.unchanged !== undefined) return;
  if ((await committedEntries(ctx.deps.knex, witness.ids, auditActionsOf(def))) > 0) return;
  const message = `${def.method.toUpperCase()} ${def.path} answered ${ctx.status} but committed no audit entry (${auditActionsOf(def).join(', ')})`;
  process.stderr.write(`AUDIT CONTRACT: ${message}\n`);
  throw new Error(message);
}

/**
 * A route's `role` for a cookie caller (the role projectFromSession found): short of it, the
 * attempt is recorded and refused before the body is even read. Key callers carry no role: an API
 * key acts for the whole project.
 */
function roleGuard(def: RouteDef & { role: NonNullable<RouteDef['role']> }) {
  return async (ctx: AppContext, next: Next) => {
    const { project, role } = ctx.state;
    if (project && role && !can(role, def.role)) {
      const params = def.params ? safeParse(def.params, ctx.params ?? {}) : null;
      const id = params?.success && typeof (params.data as any)?.id === 'string' ? (params.data as any).id : null;
      await refuseRole(ctx, project.id, def.role, role, { type: targetTypeOf(auditActionsOf(def)[0]), id });
    }
    await next();
  };
}

/**
 * The principal the route's `auth` names, which the auth middleware has set (or answered 401):
 * checked here, so a handler's non-null `project` or `user` is a fact, not an assumption.
 */
function principalOf(def: RouteDef, ctx: AppContext): Principal<Auth> {
  const { project, user, scopes } = ctx.state;
  if ((def.auth === 'secret' || def.auth === 'public') && !project)
    throw new Error(`${def.method.toUpperCase()} ${def.path}: no project after ${def.auth} auth`);
  if (def.auth === 'session' && !user) throw new Error(`${def.method.toUpperCase()} ${def.path}: no user after session auth`);
  return { project, user, scopes } as Principal<Auth>;
}

export function buildRouter(defs: RouteDef[]): Router<any, any> {
  const router = new Router();
  for (const def of defs) {
    const handle = async (ctx: AppContext) => {
      const input = validate(def, ctx);
      const callHandler = () => def.handler(ctx, { ...input, ...principalOf(def, ctx) });
      // The handler's own writes (not the auth middleware's bookkeeping) send its heavy reads to the
      // primary (db/replicas.ts). Without replicas nothing reads that record, so no request pays for it.
      const run = () => (ctx.deps.reader ? withWriteScope(ctx.state.project?.id, callHandler) : callHandler());
      // Workflow edits record their author in the versions they make (db/workflowVersions.ts); only
      // the workflows' routes edit graphs, so no other request (the tracking path) pays for it.
      const reply = await (def.tag === 'workflows' ? versionAuthor.run(requestAuditor(ctx).actor, run) : run());
      // A handler that set the body itself (pages, streams, bytes, 204s) returns nothing. The status
      // is the one the handler set, or Koa's 200 for a body.
      if (reply !== undefined) ctx.body = reply;
      if (checkReplies) checkReply(def, ctx);
    };
    const handler =
      checkAudits && def.audit !== undefined
        ? async (ctx: AppContext) => {
            const witness: { ids: string[]; unchanged?: string } = { ids: [] };
            await auditWitness.run(witness, () => handle(ctx));
            await checkAudited(def, ctx, witness);
          }
        : handle;
    const named = { method: def.method, path: def.path, audit: def.audit, replay: def.idempotent === 'replay' };
    const chain: any[] = [
      (ctx: AppContext, next: Next) => {
        ctx.state.route = named;
        return next();
      },
    ];
    if (def.auth === 'session' && def.method !== 'get') chain.push(crossSiteGuard({ multipart: !!def.multipart }));
    else if (def.crossSiteForms) chain.push(crossSiteGuard({ multipart: false, forms: true }));
    if (def.auth === 'public') chain.push(publicCors);
    chain.push(...authFor(def));
    if (def.role) chain.push(roleGuard(def as RouteDef & { role: NonNullable<RouteDef['role']> }));
    if (def.idempotent) chain.push(idempotency);
    if (def.rawJsonBody) chain.push(rawJsonBody(def.rawJsonBody.limitBytes));
    else if (def.method !== 'get' && def.method !== 'delete') chain.push(bodyParser(def));
    else if (def.body) chain.push(koaBody({ jsonLimit: def.bodyLimit ?? DEFAULT_JSON_LIMIT, parsedMethods: ['DELETE', 'GET'] as any }));
    if (def.multipart) chain.push(removeUploadsAfter);
    chain.push(handler);
    (router as any)[def.method](def.path, ...chain);
  }
  // Browsers' preflights for the public-key routes; other paths keep allowedMethods' plain OPTIONS answer.
  const publicMethods = new Map<string, string[]>();
  for (const def of defs.filter((d) => d.auth === 'public')) publicMethods.set(def.path, [...(publicMethods.get(def.path) ?? []), def.method.toUpperCase()]);
  for (const [path, methods] of publicMethods) router.options(path, publicPreflight(methods));
  return router;
}
