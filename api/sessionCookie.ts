import type { AppContext } from './context';
import type { UserRow } from '../db/users';
import { signJwt } from '../lib/jwt';
import { SESSION_COOKIE } from './middleware/auth';

export const SESSION_TTL_SECONDS = 7 * 24 * 3600;

/**
 * Signs the user in on this browser. Every way in (password, reset link, second factor, SSO) ends
 * here, so the cookie's shape and flags live in one place.
 */
export async function startSession(ctx: AppContext, user: UserRow): Promise<void> {
  // `sv`: the user's session version; bumping it ends this cookie (middleware/auth.ts session()).
  const token = signJwt({ sub: user.id, sv: user.session_version }, ctx.deps.config.jwtSecret, SESSION_TTL_SECONDS);
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
