import type { Knex } from 'knex';
import { AuditEntry, recordAudit, SECRET_KEY_ACTOR } from '../db/auditLog';

/** Who made a change and from where, as the audit log records it. */
export interface AuditWho {
  actor: string;
  ip: string | null;
}

/**
 * The audit actor of a request: the signed-in user (the dashboard's cookie, on any route), else the
 * secret key the request carried. Structural, so services need not know the HTTP context's type:
 * a Koa context fits (`ctx.state.user` is set by cookie auth, `ctx.ip` honours the trusted proxy).
 */
export function requestAuditor(request: { state: { user?: { id: string } }; ip?: string }): AuditWho {
  return { actor: request.state.user?.id ?? SECRET_KEY_ACTOR, ip: request.ip || null };
}

/** An entry without who and where: `audited` adds them. */
export type AuditChange = Omit<AuditEntry, 'actor' | 'ip'>;

/**
 * Runs a change and its audit entry in one transaction: the entry commits with the change, and a
 * change that throws (or that `entryOf` says did not happen: a refusal returned as a value) writes
 * none. `work` must make its writes on the transaction it is given; db functions that open their own
 * transaction nest as a savepoint inside it.
 */
export async function audited<T>(
  knex: Knex,
  who: AuditWho,
  work: (trx: Knex.Transaction) => Promise<T>,
  entryOf: (result: T) => AuditChange | null | undefined | false,
): Promise<T> {
  return knex.transaction(async (trx) => {
    const result = await work(trx);
    const change = entryOf(result);
    if (change) await recordAudit(trx, { ...change, ...who });
    return result;
  });
}
