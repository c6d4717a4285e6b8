import type { Knex } from 'knex';
import { uuid } from '../lib/ids';
import type { UserRow } from './users';

/** One sign-in on one device: the row behind a session cookie's `sid` (api/sessionCookie.ts). */
export interface SessionRow {
  id: string;
  user_id: string;
  created_at: Date;
  last_seen_at: Date;
  user_agent: string | null;
  ip: string | null;
  revoked_at: Date | null;
}

/** last_seen_at moves at most this often: the sessions list needs minutes, not every request's write. */
export const LAST_SEEN_EVERY_SECONDS = 60;

const clip = (s: string | undefined, max: number) => (s ? s.slice(0, max) : null);

/**
 * A new session row for a sign-in. The user's rows whose cookie has expired (older than
 * `ttlSeconds`) go at the same time: they can never sign anyone in again, and they hold a device and
 * an address, so nothing keeps them past their use.
 */
export async function createSession(knex: Knex, s: { userId: string; userAgent?: string; ip?: string; ttlSeconds: number }): Promise<string> {
  const id = uuid();
  await knex('user_sessions')
    .where({ user_id: s.userId })
    .where('created_at', '<', knex.raw('now() - make_interval(secs => ?)', [s.ttlSeconds]))
    .del();
  await knex('user_sessions').insert({ id, user_id: s.userId, user_agent: clip(s.userAgent, 500), ip: clip(s.ip, 100) });
  return id;
}

/**
 * The user of a live session, in one statement (it runs on every dashboard request): the row must
 * be the user's, unrevoked, and the user's session version must still be the cookie's.
 */
export async function liveSessionUser(
  knex: Knex,
  c: { userId: string; sessionId: string; sessionVersion: number },
): Promise<(UserRow & { session_last_seen_at: Date }) | undefined> {
  return knex('users')
    .join('user_sessions as s', 's.user_id', 'users.id')
    .where({ 'users.id': c.userId, 's.id': c.sessionId, 'users.session_version': c.sessionVersion })
    .whereNull('s.revoked_at')
    .first('users.*', 's.last_seen_at as session_last_seen_at');
}

/** Moves last_seen_at when it is older than a minute; the condition keeps concurrent replicas from writing twice. */
export async function touchSession(knex: Knex, sessionId: string): Promise<void> {
  await knex('user_sessions')
    .where({ id: sessionId })
    .where('last_seen_at', '<', knex.raw('now() - make_interval(secs => ?)', [LAST_SEEN_EVERY_SECONDS]))
    .update({ last_seen_at: knex.fn.now() });
}

/** The user's sessions whose cookie can still work (not revoked, younger than the cookie's lifetime), newest first. */
export async function listSessions(knex: Knex, userId: string, ttlSeconds: number): Promise<SessionRow[]> {
  return knex<SessionRow>('user_sessions')
    .where({ user_id: userId })
    .whereNull('revoked_at')
    .where('created_at', '>', knex.raw('now() - make_interval(secs => ?)', [ttlSeconds]))
    .orderBy([
      { column: 'last_seen_at', order: 'desc' },
      { column: 'id', order: 'asc' },
    ]);
}

/** Ends one session of the user; false when it is not theirs or already ended. */
export async function revokeSession(knex: Knex, userId: string, sessionId: string): Promise<boolean> {
  const n = await knex('user_sessions').where({ id: sessionId, user_id: userId }).whereNull('revoked_at').update({ revoked_at: knex.fn.now() });
  return n > 0;
}

/** Ends every session of the user, except `keep` (the one changing the password). */
export async function revokeSessions(knex: Knex, userId: string, keep?: string): Promise<number> {
  const q = knex('user_sessions').where({ user_id: userId }).whereNull('revoked_at');
  if (keep) q.whereNot({ id: keep });
  return q.update({ revoked_at: knex.fn.now() });
}
