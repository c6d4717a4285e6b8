import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';
import { pageOf } from './pages';

/**
 * What the audit log records (docs/privacy.md "Audit log"). `contact.erase` and `contact.export` are
 * written by the erasure and export routes; `retention.prune` by the retention sweep (actor `system`).
 */
export const AUDIT_ACTIONS = [
  'project.create',
  'keys.rotate',
  'member.add',
  'member.invite',
  'member.role',
  'member.remove',
  'invite.withdraw',
  'project.update',
  'project.reset',
  'settings.update',
  'billing.limits',
  'domain.create',
  'domain.delete',
  'contact.delete',
  'contact.erase',
  'contact.export',
  'contact.import',
  'contact.bulk_subscribe',
  'contact.bulk_unsubscribe',
  'contact.bulk_delete',
  'contact_field.delete',
  'event.delete',
  'suppression.add',
  'suppression.remove',
  'template.delete',
  'campaign.delete',
  'campaign.send',
  'workflow.delete',
  'workflow.enable',
  'workflow.disable',
  'workflow.update',
  'segment.delete',
  'topic.create',
  'topic.update',
  'topic.delete',
  'webhook_endpoint.create',
  'webhook_endpoint.update',
  'webhook_endpoint.rotate_secret',
  'webhook_endpoint.delete',
  'retention.prune',
  /** A role that fell short: the refused attempt, `details.action` naming what was tried (docs/roles.md). */
  'access.denied',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** A signed-in user's id, or one of the two actors that are not people. */
export type AuditActor = string;
export const SECRET_KEY_ACTOR = 'secret key';
export const SYSTEM_ACTOR = 'system';

export interface AuditEntry {
  projectId: string;
  actor: AuditActor;
  action: AuditAction;
  /** The changed thing by type and id; never an address or other personal data. */
  target: { type: string; id: string | null };
  /** Non-personal specifics: the settings keys changed, a new role, counts removed. */
  details?: Record<string, unknown> | null;
  ip?: string | null;
}

export interface AuditRow {
  id: string;
  project_id: string;
  at: Date;
  actor: string;
  action: AuditAction;
  target_type: string;
  target_id: string | null;
  details: Record<string, unknown> | null;
  ip: string | null;
  /** The acting user's current address, when the actor is a user who still exists. */
  actor_email: string | null;
}

/**
 * The entries written while a request runs, by id: the router opens one per request of a route that
 * declares `audit` when it checks that contract (api/router.ts), and `recordAudit` notes each insert
 * in it, so the check can find them committed. Outside such a request there is no store and nothing is noted.
 */
export const auditWitness = new AsyncLocalStorage<{ ids: string[] }>();

/** Of `ids`, the committed entries with one of `actions`: what the router's audit check counts. */
export async function committedEntries(knex: Knex, ids: string[], actions: readonly AuditAction[]): Promise<number> {
  if (!ids.length) return 0;
  const [{ n }] = await knex('audit_log').whereIn('id', ids).whereIn('action', actions).count({ n: '*' });
  return Number(n);
}

/**
 * Writes one entry. Pass the transaction of the change itself, so the entry commits with it or not
 * at all (services/audit.ts `audited` does this for the routes).
 */
export async function recordAudit(trx: Knex, entry: AuditEntry): Promise<void> {
  const [row] = await trx('audit_log')
    .insert({
      project_id: entry.projectId,
      actor: entry.actor,
      action: entry.action,
      target_type: entry.target.type,
      target_id: entry.target.id,
      details: entry.details ? JSON.stringify(entry.details) : null,
      ip: entry.ip ?? null,
    })
    .returning('id');
  auditWitness.getStore()?.ids.push(String(row.id));
}

export interface AuditFilter {
  action?: AuditAction;
  actor?: string;
  from?: Date;
  to?: Date;
  page: number;
  pageSize: number;
}

/** A page of the project's log, newest first, with the filters applied to rows and total alike. */
export async function listAudit(knex: Knex, projectId: string, f: AuditFilter) {
  const filtered = () => {
    const q = knex('audit_log').where({ project_id: projectId });
    if (f.action) q.where('action', f.action);
    if (f.actor) q.where('actor', f.actor);
    if (f.from) q.where('at', '>=', f.from);
    if (f.to) q.where('at', '<', f.to);
    return q;
  };
  const page = await pageOf<Omit<AuditRow, 'actor_email'>>(filtered, { page: f.page, pageSize: f.pageSize, orderSql: 'at', dir: 'desc' });
  // Actors are user ids or words; only ids that look like one are looked up (users.id is a uuid).
  const userIds = [...new Set(page.rows.map((r) => r.actor).filter((a) => UUID.test(a)))];
  const users: Array<{ id: string; email: string }> = userIds.length ? await knex('users').whereIn('id', userIds).select('id', 'email') : [];
  const emailOf = new Map(users.map((u) => [u.id, u.email]));
  return { ...page, rows: page.rows.map((r): AuditRow => ({ ...r, actor_email: emailOf.get(r.actor) ?? null })) };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
