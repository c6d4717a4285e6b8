import type { Next } from 'koa';
import type { AppContext } from '../context';
import { ApiError, unauthorized } from '../errors';
import { findProject, findProjectByIdCounting, findProjectByKey, findProjectByKeyCounting, KeyKind, ProjectRow, RateLimitCounts } from '../../db/projects';
import { publicLimitOf, publicRateLimitResult, rateLimitResult, windowStartOf } from '../../db/rateLimit';
import { applyRateLimit } from './rateLimit';
import type { UserRow } from '../../db/users';
import { LAST_SEEN_EVERY_SECONDS, liveSessionUser, touchSession } from '../../db/sessions';
import { verifyJwt } from '../../lib/jwt';
import { crossSiteGuard } from './crossSite';
import { notFound } from '../errors';
import { memberAccess } from '../../db/twoFactor';
import { twoFactorRequired } from '../projectAccess';
import { API_KEY_PREFIX, type ApiKeyScope, findApiKeyBySecret, grants } from '../../db/apiKeys';
import { lacksScope, SECRET_KEY_SCOPES } from '../../services/apiKeys';

const PUBLIC_KEY_SCOPES: readonly ApiKeyScope[] = ['track'];

/**
 * The scope a keyed route needs (api/route.ts `scope`): a key without it gets 403 INSUFFICIENT_SCOPE
 * naming the scope. The project's secret key and the dashboard's cookie hold every scope.
 */
export function requireScope(scope: ApiKeyScope) {
  return async (ctx: AppContext, next: Next) => {
    if (!grants(ctx.state.scopes ?? [], scope)) throw new ApiError(403, 'INSUFFICIENT_SCOPE', lacksScope(scope), { details: { scope } });
    await next();
  };
}

/** The header naming the project a cookie-authenticated request to a secret-key route acts on. */
export const PROJECT_ID_HEADER = 'X-Project-Id';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const SESSION_COOKIE = 'token';

function bearer(ctx: AppContext): string | null {
  const header = ctx.get('Authorization');
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : null;
}

/**
 * API-key auth: the key alone names the project, and its kind must match the route's. With
 * `rateLimited`, the same statement counts the request against the project's limit.
 */
export function apiKey(required: KeyKind, rateLimited = true, opts: { multipart?: boolean } = {}) {
  // Secret-key routes also serve the dashboard's session cookie (docs/api.md, "Cookie access").
  const byCookie = required === 'secret' ? projectFromSession(rateLimited, crossSiteGuard({ multipart: !!opts.multipart })) : null;
  return async (ctx: AppContext, next: Next) => {
    const key = bearer(ctx);
    // A key, when sent, decides alone: a request never mixes the key's project with the cookie's user.
    if (!key && byCookie && ctx.cookies.get(SESSION_COOKIE)) return byCookie(ctx, next);
    if (!key) throw unauthorized('Missing API key: send Authorization: Bearer <key>');
    const now = Date.now();
    const { knex, config } = ctx.deps;
    // A named key (docs/api.md "Scoped API keys") serves both kinds of route; the route's `scope`
    // decides (api/router.ts scopeGuard). It counts against the limit like the secret key.
    if (key.startsWith(API_KEY_PREFIX)) {
      const named = await findApiKeyBySecret(knex, key);
      if (!named) throw unauthorized('Invalid API key');
      if (named.project.disabled) throw new ApiError(403, 'PROJECT_DISABLED', 'This project is disabled');
      ctx.state.project = named.project;
      ctx.state.apiKey = named.key;
      ctx.state.scopes = named.key.scopes;
      if (rateLimited) {
        const counted = await findProjectByIdCounting(knex, named.project.id, new Date(windowStartOf(now)));
        if (counted) applyRateLimit(ctx, rateLimitResult(counted.count, config.rateLimitPerMinute, now));
      }
      return next();
    }
    let found: { project: ProjectRow; kind: KeyKind } | null = null;
    let counts: RateLimitCounts | undefined;
    if (key.length <= 200) {
      const counted = rateLimited
        ? await findProjectByKeyCounting(knex, key, new Date(windowStartOf(now)), publicLimitOf(config.rateLimitPerMinute, config.rateLimitPublicShare))
        : null;
      found = rateLimited ? counted : await findProjectByKey(knex, key);
      counts = counted ?? undefined;
    }
    if (!found) throw unauthorized('Invalid API key');
    if (found.kind !== required) {
      throw new ApiError(
        401,
        'INVALID_API_KEY',
        required === 'public'
          ? 'This endpoint takes the public key (pk_…), not the secret key'
          : 'This endpoint takes the secret key (sk_…), not the public key',
        { suggestion: required === 'public' ? 'Use your project public key (pk_…) for /v1/track' : 'Use your project secret key (sk_…) on the server side' },
      );
    }
    if (found.project.disabled) throw new ApiError(403, 'PROJECT_DISABLED', 'This project is disabled');
    ctx.state.project = found.project;
    // The project's pair keeps what it always had: the secret key every scope, the public key /v1/track.
    ctx.state.scopes = found.kind === 'secret' ? SECRET_KEY_SCOPES : PUBLIC_KEY_SCOPES;
    // The public key sits in web pages: it gets its own share of the limit, so its visitors can never
    // spend what the tenant's server needs (RATE_LIMIT_PUBLIC_SHARE).
    if (counts) {
      applyRateLimit(
        ctx,
        found.kind === 'public'
          ? publicRateLimitResult(counts, config.rateLimitPerMinute, config.rateLimitPublicShare, now)
          : rateLimitResult(counts.count, config.rateLimitPerMinute, now),
      );
    }
    await next();
  };
}

/**
 * The signed-in user of the request, if any: for pages that answer both the signed-in and everyone
 * else. The cookie names its session row (`sid`), which must be the user's and unrevoked, and its
 * `sv` must be the user's current session version, so a password reset or "log out everywhere"
 * ends every earlier cookie at once and "Sign out" on the account screen ends exactly one. Cookies
 * issued before session rows existed carry no `sid`: they no longer sign anyone in.
 */
export async function sessionUser(ctx: AppContext): Promise<UserRow | undefined> {
  const token = ctx.cookies.get(SESSION_COOKIE);
  const claims = token ? verifyJwt(token, ctx.deps.config.jwtSecret) : null;
  if (!claims || typeof claims.sid !== 'string' || !UUID.test(claims.sid)) return undefined;
  const found = await liveSessionUser(ctx.deps.knex, { userId: claims.sub, sessionId: claims.sid, sessionVersion: claims.sv ?? 0 });
  if (!found) return undefined;
  const { session_last_seen_at: lastSeen, ...user } = found;
  if (Date.now() - lastSeen.getTime() > LAST_SEEN_EVERY_SECONDS * 1000) await touchSession(ctx.deps.knex, claims.sid);
  ctx.state.sessionId = claims.sid;
  return user;
}

/** Dashboard auth: the JWT cookie set by /auth/login or /auth/signup. */
export async function session(ctx: AppContext, next: Next) {
  const user = await sessionUser(ctx);
  if (!user) throw unauthorized('Not signed in');
  ctx.state.user = user;
  await next();
}

/**
 * The session cookie plus `X-Project-Id` in place of the secret key: the signed-in user acts on a
 * project they are a member of (any role: docs/roles.md lets a MEMBER use most resource routes; a route's `role` names those it
 * may not, checked by api/router.ts with the role kept here). The
 * project is then what the key would have named — its rate limit and billing limits apply as for a
 * key — so handlers read ctx.state.project either way. A write first passes the guard every cookie
 * write passes (api/middleware/crossSite.ts): the browser attaches the cookie to other sites' requests too.
 */
function projectFromSession(rateLimited: boolean, guard: ReturnType<typeof crossSiteGuard>) {
  return async (ctx: AppContext, next: Next) => {
    const authenticate = async () => {
      // The same check as session(): a revoked cookie (older session version) is no cookie.
      const user = await sessionUser(ctx);
      if (!user) throw unauthorized('Not signed in: send the session cookie of a signed-in user, or Authorization: Bearer <secret key>');
      const projectId = ctx.get(PROJECT_ID_HEADER).trim();
      if (!projectId) throw unauthorized(`Missing ${PROJECT_ID_HEADER}: with the session cookie, send ${PROJECT_ID_HEADER}: <project id>`);
      // Unknown, malformed, or a project the user is not in: the same 404 as the project routes.
      const access = UUID.test(projectId) ? await memberAccess(ctx.deps.knex, projectId, user.id) : null;
      if (!access) throw notFound('Project');
      if (access.twoFactorMissing) throw twoFactorRequired();
      const role = access.role;
      const now = Date.now();
      const found = rateLimited
        ? await findProjectByIdCounting(ctx.deps.knex, projectId, new Date(windowStartOf(now)))
        : { project: await findProject(ctx.deps.knex, projectId), count: undefined };
      if (!found?.project) throw notFound('Project');
      if (found.project.disabled) throw new ApiError(403, 'PROJECT_DISABLED', 'This project is disabled');
      ctx.state.user = user;
      ctx.state.project = found.project;
      ctx.state.role = role;
      // The dashboard's cookie is not a key: its role decides (api/router.ts roleGuard), not scopes.
      ctx.state.scopes = SECRET_KEY_SCOPES;
      if (found.count !== undefined) applyRateLimit(ctx, rateLimitResult(found.count, ctx.deps.config.rateLimitPerMinute, now));
      await next();
    };
    if (ctx.method === 'GET' || ctx.method === 'HEAD') return authenticate();
    return guard(ctx, authenticate);
  };
}
