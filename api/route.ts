import { z } from 'zod';
import type { AppContext, Deps } from './context';

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
export interface RouteDef<P = any, Q = any, B = any> {
  method: Method;
  path: string;
  auth: Auth;
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
  handler(ctx: AppContext, input: { params: P; query: Q; body: B }): Promise<void> | void;
}

export function route<P = unknown, Q = unknown, B = unknown>(def: RouteDef<P, Q, B>): RouteDef<P, Q, B> {
  return def;
}
