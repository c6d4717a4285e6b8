import crypto from 'node:crypto';
import type { AppContext } from './context';
import { findUser, type UserRow } from '../db/users';
import { signJwt, verifyJwt } from '../lib/jwt';

/**
 * The "password done, second factor pending" ticket of a sign-in (docs/api.md "Two-factor authentication"):
 * an httpOnly cookie, valid for TICKET_TTL_SECONDS, sent only to /auth/login…, that names the user
 * and their session version. It is no session: it is signed with a key derived for this purpose
 * alone, so it never verifies as the session cookie (nor a session cookie as a ticket).
 */
export const TICKET_COOKIE = 'two_factor';
export const TICKET_TTL_SECONDS = 5 * 60;
const TICKET_PATH = '/auth/login';

const ticketKey = (jwtSecret: string) => crypto.createHmac('sha256', jwtSecret).update('svc two-factor ticket v1').digest('base64url');

export function issueTicket(ctx: AppContext, user: UserRow): void {
  const token = signJwt({ sub: user.id, sv: user.session_version }, ticketKey(ctx.deps.config.jwtSecret), TICKET_TTL_SECONDS);
  ctx.cookies.set(TICKET_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.secure,
    path: TICKET_PATH,
    maxAge: TICKET_TTL_SECONDS * 1000,
    overwrite: true,
  });
}

/** The user the ticket names, while it is fresh and their sessions were not ended since (password reset, sign out everywhere). */
export async function ticketUser(ctx: AppContext): Promise<UserRow | undefined> {
  const token = ctx.cookies.get(TICKET_COOKIE);
  const claims = token ? verifyJwt(token, ticketKey(ctx.deps.config.jwtSecret)) : null;
  const user = claims ? await findUser(ctx.deps.knex, claims.sub) : undefined;
  return user && (claims!.sv ?? 0) === user.session_version ? user : undefined;
}

export const clearTicket = (ctx: AppContext) => ctx.cookies.set(TICKET_COOKIE, null, { httpOnly: true, sameSite: 'lax', path: TICKET_PATH, overwrite: true });
