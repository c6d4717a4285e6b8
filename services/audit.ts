import type { Knex } from 'knex';
import { AuditEntry, type AuditTargetType, apiKeyActor, auditWitness, recordAudit, SECRET_KEY_ACTOR } from '../db/auditLog';

/** Who made a change and from where, as the audit log records it. */
export interface AuditWho {
  actor: string;
  ip: string | null;
}

/**
 * The audit actor of a request: the signed-in user (the dashboard's cookie, on any route), else the
 * key the request carried (the project's secret key, or a named key by its prefix). Structural, so services need not know the HTTP context's type:
 * a Koa context fits (`ctx.state.user` is set by cookie auth, `ctx.ip` honours the trusted proxy).
 */
export function requestAuditor(request: { state: { user?: { id: string }; apiKey?: { prefix: string } }; ip?: string }): AuditWho {
  const key = request.state.apiKey;
  return { actor: request.state.user?.id ?? (key ? apiKeyActor(key.prefix) : SECRET_KEY_ACTOR), ip: request.ip || null };
}

/** The keys a patch body sets (a key the schema left undefined was not sent): an entry's `changed`. */
export const changedKeys = (body: object): string[] => Object.entries(body).flatMap(([k, v]) => (v === undefined ? [] : [k]));

/**
 * Says that a request of an audited route changed nothing at all (an empty patch), so its 2xx
 * rightly has no entry: the one way past the router's audit check (api/router.ts), by name and reason.
 */
export function nothingChanged(reason: string): void {
  const witness = auditWitness.getStore();
  if (witness) witness.unchanged = reason;
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

/** What a refused attempt names: the permission it lacked, the caller's role and the route tried. */
export interface Denial {
  projectId: string;
  permission: string;
  role: string;
  route: { method: string; path: string; audit?: string | readonly string[] };
  /** The thing the attempt was about, as the route's own entries would name it. */
  target: { type: AuditTargetType; id: string | null };
}

/**
 * Records a refused attempt as an `access.denied` entry: on its own, since there is no change to
 * commit with, and before the 403 is answered, so a refusal the log missed cannot happen. The entry
 * names what was tried (`details.action`: the route's audit action, or the route itself).
 */
export async function recordDenied(knex: Knex, who: AuditWho, d: Denial): Promise<void> {
  const actions = d.route.audit === undefined ? [] : typeof d.route.audit === 'string' ? [d.route.audit] : [...d.route.audit];
  const route = `${d.route.method.toUpperCase()} ${d.route.path}`;
  await recordAudit(knex, {
    ...who,
    projectId: d.projectId,
    action: 'access.denied',
    target: d.target,
    details: { action: actions.length === 1 ? actions[0] : actions.length ? actions : route, permission: d.permission, role: d.role, route },
  });
}
