import { AsyncLocalStorage } from 'node:async_hooks';

/** A request's (or job's) record of whether it wrote on the primary: its later reads must see that write. */
interface WriteScope {
  wrote: boolean;
  projectId?: string;
}

const writeScope = new AsyncLocalStorage<WriteScope>();

/**
 * Runs `fn` with its own write record: any INSERT, UPDATE, DELETE (…) the primary runs inside it
 * sends the scope's later heavy reads to the primary (read-your-writes). The router opens one
 * around each handler only, so the auth middleware's bookkeeping writes (a session's last_seen_at)
 * do not count as the request's own.
 */
export function withWriteScope<T>(projectId: string | undefined, fn: () => T): T {
  return writeScope.run({ wrote: false, projectId }, fn);
}

/** The replica sets of this process, told which project a scope wrote for (their recent-write windows). */
export const writeListeners = new Set<(projectId: string) => void>();

/**
 * Notes a statement run on the primary: a write marks the current scope (and its project) as
 * written. Knex's 'query' event calls it; db/prepared.ts calls it for the statements it sends to a
 * pooled pg client itself, past knex's events.
 */
export function noteStatement(sql: string): void {
  const scope = writeScope.getStore();
  if (!scope || scope.wrote || !isWriteSql(sql)) return;
  scope.wrote = true;
  if (scope.projectId) for (const listener of writeListeners) listener(scope.projectId);
}

/** Statements that change nothing: they do not make a request read the primary. */
const READ_ONLY = /^\s*(select|show|begin|commit|rollback|savepoint|release|set|explain)\b/i;

/** True for SQL that may write: a `WITH` is a write when it holds a data-changing statement. */
export function isWriteSql(sql: string): boolean {
  if (READ_ONLY.test(sql)) return /^\s*select\b[\s\S]*\bfor\s+(update|no key update)\b/i.test(sql);
  if (/^\s*with\b/i.test(sql)) return /\b(insert|update|delete|merge)\s/i.test(sql);
  return true;
}

/** True when the current scope has written on the primary. */
export function scopeWrote(): boolean {
  return writeScope.getStore()?.wrote ?? false;
}
