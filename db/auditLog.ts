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
  'api_key.create',
  'api_key.revoke',
  'member.add',
  'member.invite',
  'member.role',
  'member.remove',
  'invite.withdraw',
  'project.update',
  'project.require_two_factor',
  'project.reset',
  'settings.update',
  'billing.limits',
  'domain.create',
  'domain.delete',
  'tracking_domain.set',
  'tracking_domain.delete',
  'contact.delete',
  'contact.erase',
  'contact.export',
  'contact.import',
  'contact.bulk_subscribe',
  'contact.bulk_unsubscribe',
  'contact.bulk_delete',
  'contact_field.delete',
  'contact_view.create',
  'contact_view.update',
  'contact_view.delete',
  'event.delete',
  'suppression.add',
  'suppression.remove',
  'template.create',
  'template.update',
  'template.delete',
  'template.publish',
  'brand.update',
  'campaign.create',
  'campaign.update',
  'campaign.delete',
  'campaign.send',
  'campaign.cancel',
  'campaign.unschedule',
  'workflow.create',
  'workflow.delete',
  'workflow.enable',
  'workflow.disable',
  'workflow.update',
  'segment.create',
  'segment.update',
  'segment.delete',
  'topic.create',
  'topic.update',
  'topic.delete',
  'form.create',
  'form.update',
  'form.delete',
  'webhook_endpoint.create',
  'webhook_endpoint.update',
  'webhook_endpoint.rotate_secret',
  'webhook_endpoint.delete',
  'retention.prune',
  /** A role that fell short: the refused attempt, `details.action` naming what was tried (docs/roles.md). */
  'access.denied',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * The kinds of thing an entry names as its target. The dashboard has words for each
 * (test/unit/auditSummary.test.ts holds en, fr and de to this list).
 */
export const AUDIT_TARGET_TYPES = [
  'project',
  'settings',
  'api_key',
  'user',
  'invite',
  'domain',
  'tracking_domain',
  'contact',
  'contact_field',
  'contact_view',
  'job',
  'event',
  'suppression',
  'template',
  'campaign',
  'workflow',
  'segment',
  'topic',
  'form',
  'webhook_endpoint',
] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

/** The target type an action names (`campaign.update`: a campaign), or the project for actions on it (`billing.limits`, `member.role`). */
export function targetTypeOf(action: AuditAction | undefined): AuditTargetType {
  const group = action?.split('.')[0] ?? '';
  return (AUDIT_TARGET_TYPES as readonly string[]).includes(group) ? (group as AuditTargetType) : 'project';
}

/**
 * The keys an entry's details may hold. The dashboard lists the details with a label per key
 * (test/unit/auditSummary.test.ts holds en, fr and de to this list), so a writer that adds a key adds it here.
 */
export const AUDIT_DETAIL_KEYS = [
  'name',
  'slug',
  'starter',
  'changed',
  'deleted',
  'removed',
  'added',
  'existing',
  'requireTwoFactor',
  'emails',
  'contacts',
  'role',
  'via',
  'prefix',
  'scopes',
  'domain',
  'url',
  'events',
  'enabled',
  'matching',
  'filtered',
  'reason',
  'expiresAt',
  'contactIds',
  'version',
  'restored',
  'restoredVersion',
  'duplicateOf',
  'status',
  'scheduledFor',
  'rss',
  'run',
  'archive',
  'action',
  'permission',
  'route',
  'repeated',
] as const;
export type AuditDetailKey = (typeof AUDIT_DETAIL_KEYS)[number];
/** An entry's details: only keys of AUDIT_DETAIL_KEYS. */
export type AuditDetails = { [K in AuditDetailKey]?: unknown };

/** A signed-in user's id, or one of the two actors that are not people. */
export type AuditActor = string;
export const SECRET_KEY_ACTOR = 'secret key';
export const SYSTEM_ACTOR = 'system';
/** A named API key (db/apiKeys.ts), by the prefix its list shows: `api key key_AbCd1234`. */
export const apiKeyActor = (prefix: string): AuditActor => `api key ${prefix}`;

export interface AuditEntry {
  projectId: string;
  actor: AuditActor;
  action: AuditAction;
  /** The changed thing by type and id; never an address or other personal data. */
  target: { type: AuditTargetType; id: string | null };
  /** Non-personal specifics: the settings keys changed, a new role, counts removed. */
  details?: AuditDetails | null;
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
export const auditWitness = new AsyncLocalStorage<{ ids: string[]; unchanged?: string }>();

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

/**
 * Where a target's name is read, by target type: the thing's current name, looked up when the log
 * is listed, so a renamed thing shows its new name and an erased contact no address (the log stores
 * ids, docs/privacy.md). Types named by their id (a field, an event name) need no lookup.
 */
const NAME_SOURCES: Record<string, { table: string; column: string }> = {
  template: { table: 'templates', column: 'name' },
  campaign: { table: 'campaigns', column: 'name' },
  workflow: { table: 'workflows', column: 'name' },
  segment: { table: 'segments', column: 'name' },
  topic: { table: 'topics', column: 'name' },
  contact_view: { table: 'contact_views', column: 'name' },
  form: { table: 'forms', column: 'name' },
  domain: { table: 'domains', column: 'domain' },
  webhook_endpoint: { table: 'webhook_endpoints', column: 'url' },
  api_key: { table: 'api_keys', column: 'name' },
  contact: { table: 'contacts', column: 'email' },
  invite: { table: 'project_invites', column: 'email' },
};
const NAMED_BY_ID = new Set(['contact_field', 'event']);
/** What an entry kept of a thing that may be gone (a deleted endpoint's URL, a domain's name). */
const KEPT_NAME = ['url', 'domain', 'name'] as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Contact ids are `cnt_…` (or 22 base62 characters before that format). */
const CONTACT_ID = /^(cnt_)?[0-9A-Za-z]{22}$/;
const looksLikeId = (type: string, id: string) => (type === 'contact' ? CONTACT_ID.test(id) : UUID.test(id));

/** An entry as listed: with the names its ids stand for, read now. */
export interface NamedAuditRow extends AuditRow {
  /** The target's current name (the kept one when it is gone), or null. */
  target_name: string | null;
  /** The contacts an entry lists by id (suppressions), by their current address; erased ones are left out. */
  contact_emails: string[];
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
  const project = await knex('projects').where({ id: projectId }).first('name');
  // One lookup per kind of name on the page, not one per entry.
  const userIds = new Set(page.rows.map((r) => r.actor).filter((a) => UUID.test(a)));
  const byType = new Map<string, Set<string>>();
  const want = (type: string, id: string | null | undefined) => {
    if (!id || !looksLikeId(type, id)) return;
    if (!byType.has(type)) byType.set(type, new Set());
    byType.get(type)!.add(id);
  };
  for (const r of page.rows) {
    if (r.target_type === 'user' && r.target_id && UUID.test(r.target_id)) userIds.add(r.target_id);
    else if (NAME_SOURCES[r.target_type]) want(r.target_type, r.target_id);
    for (const id of contactIdsIn(r.details)) want('contact', id);
  }
  const users: Array<{ id: string; email: string }> = userIds.size
    ? await knex('users')
        .whereIn('id', [...userIds])
        .select('id', 'email')
    : [];
  const emailOf = new Map(users.map((u) => [u.id, u.email]));
  const names = new Map<string, string>();
  await Promise.all(
    [...byType].map(async ([type, ids]) => {
      const { table, column } = NAME_SOURCES[type];
      const rows: Array<{ id: string; name: string }> = await knex(table)
        .where({ project_id: projectId })
        .whereIn('id', [...ids])
        .select('id', `${column} as name`);
      for (const row of rows) names.set(`${type}:${row.id}`, row.name);
    }),
  );
  const nameOf = (r: Omit<AuditRow, 'actor_email'>): string | null => {
    if (r.target_id === null) return null;
    if (r.target_type === 'project') return r.target_id === projectId ? (project?.name ?? null) : null;
    if (r.target_type === 'user') return emailOf.get(r.target_id) ?? null;
    if (NAMED_BY_ID.has(r.target_type)) return r.target_id;
    const current = names.get(`${r.target_type}:${r.target_id}`);
    if (current !== undefined) return current;
    const kept = KEPT_NAME.map((k) => r.details?.[k]).find((v) => typeof v === 'string');
    // A contact is never named from the entry itself: only while it exists.
    return r.target_type === 'contact' ? null : ((kept as string | undefined) ?? null);
  };
  return {
    ...page,
    projectName: (project?.name as string | undefined) ?? null,
    rows: page.rows.map(
      (r): NamedAuditRow => ({
        ...r,
        actor_email: emailOf.get(r.actor) ?? null,
        target_name: nameOf(r),
        contact_emails: contactIdsIn(r.details).flatMap((id) => names.get(`contact:${id}`) ?? []),
      }),
    ),
  };
}

function contactIdsIn(details: Record<string, unknown> | null): string[] {
  const ids = details?.contactIds;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
}
