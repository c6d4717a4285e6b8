import { z } from 'zod';
import type { AppContext, Deps } from './context';
import type { ProjectRow } from '../db/projects';
import type { UserRow } from '../db/users';

export type Auth = 'none' | 'secret' | 'public' | 'session';
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface RouteResponse {
  description: string;
  schema?: z.ZodType;
}

/**
 * One HTTP route: its contract (used for validation and for /openapi.json) and its handler.
 * Handlers stay thin: they get validated input, call db/ or temporal/, and shape the reply.
 */
/**
 * Who a request acts for, as its route's `auth` guarantees it: the key's project (or, with the
 * session cookie and X-Project-Id, the project the user chose), or the signed-in user. Handlers get
 * it non-null with their input instead of reaching into `ctx.state`.
 */
export type Principal<A extends Auth> = A extends 'secret' | 'public' ? { project: ProjectRow } : A extends 'session' ? { user: UserRow } : {};

export interface RouteDef<P = any, Q = any, B = any, A extends Auth = Auth> {
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
  /** Honour the Idempotency-Key header (docs/api.md, "Idempotency-Key"). */
  idempotent?: boolean;
  /**
   * Guard a route without session auth with the cross-site check too (middleware/crossSite.ts),
   * accepting urlencoded form bodies besides JSON, so a form on one of our own pages may post to it.
   */
  crossSiteForms?: boolean;
  /** Skip the per-project rate limit (health, provider webhooks). */
  noRateLimit?: boolean;
  responses?: Record<number, RouteResponse>;
  handler(ctx: AppContext, input: { params: P; query: Q; body: B } & Principal<A>): Promise<void> | void;
}

export function route<P = unknown, Q = unknown, B = unknown, A extends Auth = Auth>(def: RouteDef<P, Q, B, A>): RouteDef<P, Q, B, A> {
  return def;
}
