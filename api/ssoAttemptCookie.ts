import crypto from 'node:crypto';
import type { AppContext } from './context';
import { signJwt, verifyJwt } from '../lib/jwt';
import type { SsoAttempt } from '../services/sso';

/** One SSO attempt's state, nonce and PKCE verifier, in the browser that started it, until its callback. */
const COOKIE = 'sso_attempt';
/** Long enough to sign in at the provider (a password, a second factor), short enough that a stale attempt cannot be resumed. */
const TTL_SECONDS = 10 * 60;
const PATH = '/auth/sso';

// A key of its own, derived from JWT_SECRET: this cookie can never pass for a session cookie, nor one for it.
const keyOf = (jwtSecret: string) => crypto.createHmac('sha256', jwtSecret).update('sso-attempt').digest('base64url');

export function keepAttempt(ctx: AppContext, attempt: SsoAttempt): void {
  const token = signJwt({ sub: 'sso-attempt', ...attempt }, keyOf(ctx.deps.config.jwtSecret), TTL_SECONDS);
  // SameSite=Lax: the provider sends the browser back with a top-level GET, which carries it.
  ctx.cookies.set(COOKIE, token, { httpOnly: true, sameSite: 'lax', secure: ctx.secure, path: PATH, maxAge: TTL_SECONDS * 1000, overwrite: true });
}

/** The attempt this browser started (null when missing, forged or expired); it is spent: the cookie is cleared. */
export function takeAttempt(ctx: AppContext): SsoAttempt | null {
  const token = ctx.cookies.get(COOKIE);
  ctx.cookies.set(COOKIE, null, { httpOnly: true, sameSite: 'lax', path: PATH, overwrite: true });
  const claims = token ? verifyJwt(token, keyOf(ctx.deps.config.jwtSecret)) : null;
  if (claims?.sub !== 'sso-attempt') return null;
  const { state, nonce, verifier } = claims;
  return typeof state === 'string' && typeof nonce === 'string' && typeof verifier === 'string' ? { state, nonce, verifier } : null;
}
