import type { AppContext } from '../context';
import { ApiError } from '../errors';
import { clearAccountFailures, countIpAttempt, reserveAccountAttempt } from '../../db/authThrottle';
import { normalizeEmail } from '../../db/users';

/**
 * Sign-in limits (db/authThrottle.ts): a 429 RATE_LIMIT_EXCEEDED in the error envelope with
 * `Retry-After` and `details.retryAfter`, before any password is hashed.
 */
function tooMany(message: string, retryAfter: number): ApiError {
  return new ApiError(429, 'RATE_LIMIT_EXCEEDED', message, {
    headers: { 'Retry-After': String(retryAfter) },
    details: { retryAfter },
    suggestion: `Retry after ${retryAfter} seconds`,
  });
}

/**
 * Counts a login, signup or password-reset attempt against the client's address. `ctx.ip` is the
 * address Koa derives with the app's `proxy` setting (api/app.ts), as everything else does.
 */
export const countClientAttempt = (ctx: AppContext) => countIpAttempt(ctx.deps.knex, ctx.ip || 'unknown', ctx.deps.config.authRateLimitPerMinute);

export async function throttleClient(ctx: AppContext): Promise<void> {
  const v = await countClientAttempt(ctx);
  if (!v.allowed) {
    throw tooMany(
      `At most ${ctx.deps.config.authRateLimitPerMinute} sign-in, signup and password-reset attempts per minute from one address`,
      v.retryAfterSeconds,
    );
  }
}

/** Reserves a sign-in attempt on the address, known or not; a locked one is refused. */
export async function reserveSignIn(ctx: AppContext, email: string): Promise<void> {
  const v = await reserveAccountAttempt(ctx.deps.knex, normalizeEmail(email));
  if (!v.allowed) throw tooMany('Too many failed sign-ins for this account; it is locked for a while', v.retryAfterSeconds);
}

export const signInSucceeded = (ctx: AppContext, email: string) => clearAccountFailures(ctx.deps.knex, normalizeEmail(email));

/**
 * Second-factor attempts (sign-in code, disabling 2FA, new recovery codes) are counted per user,
 * apart from the password's count: a correct password clears that one, and must not hand out fresh
 * guesses at the code. Five wrong codes lock the second factor as five wrong passwords lock a sign-in.
 */
const secondFactorKey = (userId: string) => `second-factor:${userId}`;

export async function reserveSecondFactor(ctx: AppContext, userId: string): Promise<void> {
  const v = await reserveAccountAttempt(ctx.deps.knex, secondFactorKey(userId));
  if (!v.allowed) throw tooMany('Too many wrong authentication codes for this account; it is locked for a while', v.retryAfterSeconds);
}

export const secondFactorSucceeded = (ctx: AppContext, userId: string) => clearAccountFailures(ctx.deps.knex, secondFactorKey(userId));
