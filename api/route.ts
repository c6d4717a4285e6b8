import { z } from 'zod';
import type { AppContext, Deps } from './context';
import type { Action, ProjectRow } from '../db/projects';
import type { AuditAction } from '../db/auditLog';
import type { UserRow } from '../db/users';
import type { ApiKeyScope } from '../db/apiKeys';

export type Auth = 'none' | 'secret' | 'public' | 'session';
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface RouteResponse {
  description: string;
  /** The JSON body of this status. */
  schema?: z.ZodType;
  /** A body that is not JSON (an HTML page, a stylesheet, an image, a CSV stream): its media type. */
  contentType?: string | readonly string[];
}

/** The statuses a handler answers itself (errors are thrown, and become the error envelope). */
type AnsweredStatus = 200 | 201 | 202 | 203 | 204 | 205 | 206 | 300 | 301 | 302 | 303 | 304 | 307 | 308;

/**
 * What a handler returns, from its route's `responses`: for each 2xx (or 3xx) status, the JSON the
 * client receives as that status's schema describes it (`z.input`, so a Date where the schema says
 * string is refused: the reply check parses the JSON form), or `void` for a status without a schema
 * (204, redirects, HTML pages, CSV streams and raw bytes, which the handler sets on `ctx` itself).
 * A handler whose reply is not the default 200 sets `ctx.status` before it returns.
 */
export type Reply<R> = [AnsweredOf<R>] extends [never] ? void : AnsweredOf<R>;
type AnsweredOf<R> = {
  // A status that also answers another media type (a CSV download of the same list) may set the body itself.
  [S in keyof R & AnsweredStatus]: R[S] extends { schema: infer T extends z.ZodType }
    ? R[S] extends { contentType: unknown }
      ? z.input<T> | void
      : z.input<T>
    : void;
}[keyof R & AnsweredStatus];

/**
 * One HTTP route: its contract (used for validation and for /openapi.json) and its handler.
 * Handlers stay thin: they get validated input, call db/ or temporal/, and shape the reply.
 */
/**
 * Who a request acts for, as its route's `auth` guarantees it: the key's project (or, with the
 * session cookie and X-Project-Id, the project the user chose), or the signed-in user. Handlers get
 * it non-null with their input instead of reaching into `ctx.state`. A keyed principal carries its
 * key's scopes (`full` for the project's secret key and the cookie).
 */
export type Principal<A extends Auth> = A extends 'secret' | 'public'
  ? { project: ProjectRow; scopes: readonly ApiKeyScope[] }
  : A extends 'session'
    ? { user: UserRow }
    : {};

interface RouteContract<P, Q, B, A extends Auth> {
  method: Method;
  path: string;
  auth: A;
  summary: string;
  tag: string;
  params?: z.ZodType<P>;
  /** Named in the 404 a malformed path parameter gets; defaults to the tag in the singular. */
  resource?: string;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** The body schema for this app's deps, when it depends on them (the step registry); `body` documents the default. */
  bodyFor?: (deps: Deps) => z.ZodType<B>;
  /** JSON body limit (koa-body syntax); bodies above it get 413. */
  bodyLimit?: string;
  /** Keep the JSON body unparsed as bytes (signed webhooks); up to this many bytes. */
  rawJsonBody?: { limitBytes: number };
  /** Multipart form (file uploads); the file part arrives as ctx.request.files. */
  multipart?: { maxFileSize: number };
  /** 'flat' answers validation failures with the spec's `{ error }` body and 400. */
  validationErrors?: 'envelope' | 'flat';
  /**
   * Honour the Idempotency-Key header (docs/api.md, "Idempotency-Key"): `true` refuses a reused key
   * (409); `'replay'` answers a reused key with the first request's stored answer once it finished.
   */
  idempotent?: boolean | 'replay';
  /**
   * Guard a route without session auth with the cross-site check too (middleware/crossSite.ts),
   * accepting urlencoded form bodies besides JSON, so a form on one of our own pages may post to it.
   */
  crossSiteForms?: boolean;
  /** Skip the per-project rate limit (health, provider webhooks). */
  noRateLimit?: boolean;
  /**
   * The audit action(s) a successful call writes, with its change, through services/audit.ts
   * `audited()` (one of them per 2xx; the tests' router checks it). Every route that changes state
   * declares it, or is named with its reason in api/auditExempt.ts (test/unit/auditCoverage.test.ts).
   */
  audit?: AuditAction | readonly AuditAction[];
  /**
   * The permission (db/projects.ts PERMISSIONS) a cookie caller's role needs on a secret-key route
   * (docs/roles.md); short of it: 403 FORBIDDEN and an `access.denied` entry. An API key acts for the
   * whole project and is not asked. Session routes under /projects/:id check theirs in the handler
   * (api/projectAccess.ts requireProjectRole), with the same refusal.
   */
  role?: Action;
  /**
   * The scope a named API key needs for this route (docs/api.md "Scoped API keys"); without it, 403
   * INSUFFICIENT_SCOPE. Defaults to `full` on secret-key routes and `track` on public-key ones. The
   * project's secret key holds every scope; the dashboard's cookie is judged by `role` instead.
   */
  scope?: ApiKeyScope;
}

type Input<P, Q, B, A extends Auth> = { params: P; query: Q; body: B } & Principal<A>;

/** A handler: its validated input and principal in, the reply its route's responses document out. */
export type Handler<P, Q, B, A extends Auth, R> = (ctx: AppContext, input: Input<P, Q, B, A>) => Promise<Reply<R>> | Reply<R>;

/**
 * A route as `route()` declares it: `R` is its `responses`, kept literal, and its handler returns
 * the reply they document (the router sets it as `ctx.body`), or nothing where no 2xx has a schema.
 * (The handler is a type parameter of its own, bounded by `Handler`, so that its contextual return
 * type is the instantiated reply and a literal such as `success: true` stays `true`.)
 */
export interface TypedRouteDef<P, Q, B, A extends Auth, R extends Record<number, RouteResponse>, H extends Handler<P, Q, B, A, R> = Handler<P, Q, B, A, R>>
  extends RouteContract<P, Q, B, A> {
  responses?: R;
  handler: H;
}

/** Any route, as the route lists, the router and the OpenAPI builder hold them. */
export interface RouteDef<P = any, Q = any, B = any, A extends Auth = Auth> extends RouteContract<P, Q, B, A> {
  responses?: Record<number, RouteResponse>;
  /** The reply, or undefined when the handler set `ctx.body` itself. */
  handler(ctx: AppContext, input: Input<P, Q, B, A>): unknown;
}

export function route<
  P = unknown,
  Q = unknown,
  B = unknown,
  A extends Auth = Auth,
  const R extends Record<number, RouteResponse> = {},
  H extends Handler<P, Q, B, A, R> = Handler<P, Q, B, A, R>,
>(def: TypedRouteDef<P, Q, B, A, R, H>): TypedRouteDef<P, Q, B, A, R, H> {
  return def;
}
