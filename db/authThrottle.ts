import type { Knex } from 'knex';

/**
 * Sign-in throttle, in Postgres so every API replica counts against the same rows (migration 021,
 * table auth_throttle, keyed by scope + key). Two scopes:
 * - 'ip': every login, signup and password-reset attempt from one client address: `limit` per
 *   minute, as a GCRA (a burst of `limit`, then one every 60/limit seconds), so the count never
 *   resets all at once at a window's edge;
 * - 'account': sign-in attempts on one email address (known or not, so the answer reveals nothing).
 */

export interface ThrottleVerdict {
  allowed: boolean;
  /** Seconds until an attempt may succeed again; meaningful when not allowed. */
  retryAfterSeconds: number;
}

/** Failed sign-ins an address gets before it is locked. */
export const ACCOUNT_FREE_FAILURES = 5;
/** Failures are forgotten this long after the last one (or after the end of the last lock). */
export const ACCOUNT_FORGET_AFTER_MS = 15 * 60_000;
/** The first lock; each further failure doubles it, up to ACCOUNT_MAX_LOCK_MS. */
export const ACCOUNT_BASE_LOCK_MS = 60_000;
export const ACCOUNT_MAX_LOCK_MS = 60 * 60_000;

const secondsUntil = (t: number, now: number) => Math.max(1, Math.ceil((t - now) / 1000));

const MINUTE_MS = 60_000;

/**
 * The subject's row, created when missing, locked until the transaction ends. One upsert: an insert
 * that ignores the conflict and then selects could find nothing when a success (clearAccountFailures)
 * or the prune deleted the row in between.
 */
async function lockedRow(trx: Knex.Transaction, scope: 'ip' | 'account', key: string, fresh: Record<string, unknown>) {
  return (
    await trx('auth_throttle')
      .insert({ scope, key, ...fresh })
      .onConflict(['scope', 'key'])
      .merge(['scope'])
      .returning('*')
  )[0];
}

/** Counts one attempt from `ip`; refused beyond `limit` per minute. A refused attempt is not counted. */
export async function countIpAttempt(knex: Knex, ip: string, limit: number, now = Date.now()): Promise<ThrottleVerdict> {
  const interval = MINUTE_MS / limit;
  return knex.transaction(async (trx) => {
    const row = await lockedRow(trx, 'ip', ip, { tat: new Date(now) });
    const tat = Math.max(new Date(row.tat ?? now).getTime(), now) + interval;
    if (tat - now > MINUTE_MS) return { allowed: false, retryAfterSeconds: secondsUntil(tat - MINUTE_MS, now) };
    await trx('auth_throttle')
      .where({ scope: 'ip', key: ip })
      .update({ tat: new Date(tat) });
    return { allowed: true, retryAfterSeconds: 0 };
  });
}

/**
 * Whether `ip` is over `limit` per minute already, without counting anything: for callers that
 * count only failures (SMTP AUTH, submission/server.ts), yet must refuse even a correct guess
 * once the failures ran out.
 */
export async function ipAttemptsExhausted(knex: Knex, ip: string, limit: number, now = Date.now()): Promise<ThrottleVerdict> {
  const row = await knex('auth_throttle').where({ scope: 'ip', key: ip }).first('tat');
  const tat = Math.max(row?.tat ? new Date(row.tat).getTime() : now, now) + MINUTE_MS / limit;
  return tat - now > MINUTE_MS ? { allowed: false, retryAfterSeconds: secondsUntil(tat - MINUTE_MS, now) } : { allowed: true, retryAfterSeconds: 0 };
}

/**
 * Reserves one sign-in attempt on an account, counted as a failure until `clearAccountFailures`
 * says it succeeded: the count and the check are one locked step, so parallel guesses cannot all
 * pass the check before any failure is recorded. The attempt that reaches ACCOUNT_FREE_FAILURES
 * locks the account for ACCOUNT_BASE_LOCK_MS, each further one for twice the previous lock.
 * A locked account is refused without counting, and without hashing anything.
 */
export async function reserveAccountAttempt(knex: Knex, key: string, now = Date.now()): Promise<ThrottleVerdict> {
  return knex.transaction(async (trx) => {
    const row = await lockedRow(trx, 'account', key, { count: 0 });
    const lockedUntil = row.locked_until ? new Date(row.locked_until).getTime() : 0;
    if (lockedUntil > now) return { allowed: false, retryAfterSeconds: secondsUntil(lockedUntil, now) };
    const quietSince = Math.max(row.last_at ? new Date(row.last_at).getTime() : 0, lockedUntil);
    const count = (now - quietSince > ACCOUNT_FORGET_AFTER_MS ? 0 : row.count) + 1;
    const lockMs = count >= ACCOUNT_FREE_FAILURES ? Math.min(ACCOUNT_BASE_LOCK_MS * 2 ** (count - ACCOUNT_FREE_FAILURES), ACCOUNT_MAX_LOCK_MS) : 0;
    await trx('auth_throttle')
      .where({ scope: 'account', key })
      .update({ count, last_at: new Date(now), locked_until: lockMs ? new Date(now + lockMs) : null });
    return { allowed: true, retryAfterSeconds: 0 };
  });
}

/** A successful sign-in (or a password reset, which proves the inbox) forgets the account's failures. */
export async function clearAccountFailures(knex: Knex, key: string): Promise<void> {
  await knex('auth_throttle').where({ scope: 'account', key }).del();
}

/** Rows that no longer limit anything; the cleanup schedule calls this. */
export async function pruneAuthThrottle(knex: Knex, now = Date.now()): Promise<number> {
  const ip = await knex('auth_throttle').where({ scope: 'ip' }).where('tat', '<', new Date(now)).del();
  const account = await knex('auth_throttle')
    .where({ scope: 'account' })
    .whereRaw('greatest(last_at, locked_until) < ?', [new Date(now - ACCOUNT_FORGET_AFTER_MS)])
    .del();
  return ip + account;
}
