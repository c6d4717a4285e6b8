import type { AppContext } from './context';
import type { UserRow } from '../db/users';
import { createSession, revokeSession } from '../db/sessions';
import { signJwt, verifyJwt } from '../lib/jwt';
import { SESSION_COOKIE } from './middleware/auth';

export const SESSION_TTL_SECONDS = 7 * 24 * 3600;

/**
 * Signs the user in on this browser. Every way in (password, reset link, second factor, SSO) ends
 * here, so the cookie's shape and flags live in one place.
 */
export async function startSession(ctx: AppContext, user: UserRow): Promise<void> {
  // `sid`: this sign-in's user_sessions row, listed on the account screen and revocable alone.
  const sid = await createSession(ctx.deps.knex, { userId: user.id, userAgent: ctx.get('User-Agent'), ip: ctx.ip, ttlSeconds: SESSION_TTL_SECONDS });
  // `sv`: the user's session version; bumping it ends every cookie at once (middleware/auth.ts sessionUser()).
  const token = signJwt({ sub: user.id, sv: user.session_version, sid }, ctx.deps.config.jwtSecret, SESSION_TTL_SECONDS);
  ctx.cookies.set(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    // From the request (X-Forwarded-Proto behind a proxy): a Secure cookie on a plain-http request makes `cookies` throw.
    secure: ctx.secure,
    maxAge: SESSION_TTL_SECONDS * 1000,
    overwrite: true,
  });
}

export const clearSession = (ctx: AppContext) => ctx.cookies.set(SESSION_COOKIE, null, { httpOnly: true, sameSite: 'lax', overwrite: true });

/** Signs this browser out: its session row is revoked (so a copy of the cookie is dead too) and the cookie cleared. */
export async function endSession(ctx: AppContext): Promise<void> {
  const token = ctx.cookies.get(SESSION_COOKIE);
  const claims = token ? verifyJwt(token, ctx.deps.config.jwtSecret) : null;
  if (claims && typeof claims.sid === 'string') await revokeSession(ctx.deps.knex, claims.sub, claims.sid);
  clearSession(ctx);
}
