import type { Knex } from 'knex';
import { prepared } from './prepared';
import { randomBase62, uuid } from '../lib/ids';
import { carryOverEmailUsage } from './billing';
import { HANDED_OVER } from './security';
import { sha256Hex } from '../lib/hash';
import { RESERVED_EVENT_FAMILIES } from '../lib/reservedEvents';
import { slugify } from './slugs';

export type KeyKind = 'public' | 'secret';

export interface ProjectRow {
  id: string;
  name: string;
  public_key_hash: string;
  secret_key_hash: string;
  public_key_last4: string;
  secret_key_last4: string;
  disabled: boolean;
  /** Public name in archive URLs (`/archive/<slug>`): from the name at creation, unique, fixed (migration 051). */
  slug: string;
  /** Double opt-in settings (db/doubleOptIn.ts); null: off. */
  double_opt_in?: import('./doubleOptIn').DoubleOptInSettings | null;
  /** Members need two-factor authentication to open the project with their cookie (db/twoFactor.ts). */
  require_two_factor?: boolean;
  created_at: Date;
  updated_at: Date;
}

export const ROLES = ['OWNER', 'ADMIN', 'MEMBER'] as const;
export type Role = (typeof ROLES)[number];

/**
 * Who may do what on a project (docs/roles.md is the same table in prose). Rules that depend on
 * the target as well as the actor (an ADMIN cannot touch an OWNER, the last OWNER stays) live in db/members.ts.
 */
const PERMISSIONS = {
  'project.read': ['OWNER', 'ADMIN', 'MEMBER'],
  'project.update': ['OWNER', 'ADMIN'],
  'twoFactor.require': ['OWNER'],
  'keys.rotate': ['OWNER', 'ADMIN'],
  'apiKeys.manage': ['OWNER', 'ADMIN'],
  'audit.read': ['OWNER', 'ADMIN'],
  'members.manage': ['OWNER', 'ADMIN'],
  'owners.manage': ['OWNER'],
  'billing.limits': ['OWNER', 'ADMIN'],
  // Secret-key routes reached with the cookie (api/route.ts `role`): what can send the project's
  // data elsewhere, let mail through or change how it is sent is not for every member.
  'webhooks.manage': ['OWNER', 'ADMIN'],
  'suppressions.manage': ['OWNER', 'ADMIN'],
  'domains.manage': ['OWNER', 'ADMIN'],
  'settings.update': ['OWNER', 'ADMIN'],
  'billing.manage': ['OWNER'],
  'project.reset': ['OWNER'],
  'project.delete': ['OWNER'],
} as const satisfies Record<string, readonly Role[]>;
export type Action = keyof typeof PERMISSIONS;
/** Every permission a role may lack: what an `access.denied` entry names (the dashboard has words for each, test/unit/auditValueWords.test.ts). */
export const PERMISSION_NAMES = Object.keys(PERMISSIONS) as Action[];

export const can = (role: Role, action: Action): boolean => (PERMISSIONS[action] as readonly Role[]).includes(role);

const hashKey = sha256Hex;

function keyKind(key: string): KeyKind | null {
  if (key.startsWith('pk_')) return 'public';
  if (key.startsWith('sk_')) return 'secret';
  return null;
}

function newKeys() {
  const publicKey = `pk_${randomBase62(32)}`;
  const secretKey = `sk_${randomBase62(32)}`;
  return {
    publicKey,
    secretKey,
    columns: {
      public_key_hash: hashKey(publicKey),
      secret_key_hash: hashKey(secretKey),
      public_key_last4: publicKey.slice(-4),
      secret_key_last4: secretKey.slice(-4),
    },
  };
}

export async function createProject(knex: Knex, ownerId: string, name: string) {
  const keys = newKeys();
  return knex.transaction(async (trx) => {
    const slug = await freeProjectSlug(trx, name);
    const [row] = await trx<ProjectRow>('projects')
      .insert({ id: uuid(), name, slug, ...keys.columns })
      .returning('*');
    await trx('project_members').insert({ project_id: row.id, user_id: ownerId, role: 'OWNER' });
    return { row, keys };
  });
}

/**
 * The first free project slug for `name` (`name`, `name-2`, …). Creations take one transaction-level
 * lock for it, so two projects of the same name never pick the same one (project creation is rare).
 */
async function freeProjectSlug(trx: Knex.Transaction, name: string): Promise<string> {
  await trx.raw("SELECT pg_advisory_xact_lock(hashtext('projects.slug'))");
  const base = slugify(name, 'project', 60);
  const taken = new Set<string>(await trx('projects').where('slug', base).orWhere('slug', 'like', `${base}-%`).pluck('slug'));
  let n = 1;
  while (taken.has(n === 1 ? base : `${base}-${n}`)) n++;
  return n === 1 ? base : `${base}-${n}`;
}

/** Both keys change in one statement: the old pair stops matching on every replica at once. */
export async function rotateKeys(knex: Knex, projectId: string) {
  const keys = newKeys();
  const [row] = await knex<ProjectRow>('projects')
    .where({ id: projectId })
    .update({ ...keys.columns, updated_at: knex.fn.now() as any })
    .returning('*');
  return row ? { row, keys } : null;
}

export async function findProjectByKey(knex: Knex, key: string): Promise<{ project: ProjectRow; kind: KeyKind } | null> {
  const kind = keyKind(key);
  if (!kind) return null;
  const column = kind === 'public' ? 'public_key_hash' : 'secret_key_hash';
  const project = await knex<ProjectRow>('projects').where(column, hashKey(key)).first();
  return project ? { project, kind } : null;
}

export async function updateProject(knex: Knex, id: string, patch: Partial<Pick<ProjectRow, 'name'>>): Promise<ProjectRow | undefined> {
  const [row] = await knex<ProjectRow>('projects')
    .where({ id })
    .update({ ...patch, updated_at: knex.fn.now() as any })
    .returning('*');
  return row;
}

/** The project and everything of it (every table references projects ON DELETE CASCADE, consent_records through its contact). */
export async function deleteProject(knex: Knex, id: string): Promise<void> {
  await knex('projects').where({ id }).del();
}

export async function findProject(knex: Knex, id: string): Promise<ProjectRow | undefined> {
  return knex<ProjectRow>('projects').where({ id }).first();
}

/** Every ProjectRow column: the lookup below is a prepared statement, which must not use `*` (db/prepared.ts). */
const PROJECT_COLUMNS = 'id, name, public_key_hash, secret_key_hash, public_key_last4, secret_key_last4, disabled, double_opt_in, created_at, updated_at';

/**
 * Every request of a project bumps the same window row, so each waits for the previous one's
 * commit. A count lost in a crash costs nothing, so this statement's own commit does not wait for
 * the WAL flush (set_config(…, true) lasts until that commit): the row's lock is held for less time.
 * Only when it is its own transaction: inside a caller's, the setting would cover the caller's writes.
 *
 * `count` is what the project's limit is checked against; `public_count` counts the public key's
 * requests alone. A public request past the public key's share (the third binding) bumps only
 * `public_count`: it is refused anyway, and must not eat into what the secret key keeps. In the
 * DO UPDATE both SET expressions read the row as it was before this request.
 */
const countingLookup = (kind: KeyKind | 'id', asyncCommit: boolean) => {
  // 'id': the dashboard's session cookie + X-Project-Id, counted like the secret key.
  const column = kind === 'public' ? 'public_key_hash' : kind === 'secret' ? 'secret_key_hash' : 'id';
  const hit =
    kind === 'public'
      ? `INSERT INTO rate_limits (project_id, window_start, count, public_count) SELECT id, ?, 1, 1 FROM p
         ON CONFLICT (project_id, window_start) DO UPDATE SET
           public_count = rate_limits.public_count + 1,
           count = rate_limits.count + CASE WHEN rate_limits.public_count < ?::bigint THEN 1 ELSE 0 END
         RETURNING count, public_count`
      : `INSERT INTO rate_limits (project_id, window_start, count) SELECT id, ?, 1 FROM p
         ON CONFLICT (project_id, window_start) DO UPDATE SET count = rate_limits.count + 1
         RETURNING count, public_count`;
  return `
  WITH p AS (SELECT ${PROJECT_COLUMNS} FROM projects WHERE ${column} = ?),
       hit AS (${hit})
  SELECT p.*, hit.count AS rate_limit_count, hit.public_count AS rate_limit_public_count${asyncCommit ? `, set_config('synchronous_commit', 'off', true) AS async_commit` : ''} FROM p, hit`;
};
const COUNTING_LOOKUP = {
  own: { public: countingLookup('public', true), secret: countingLookup('secret', true), id: countingLookup('id', true) },
  inTransaction: { public: countingLookup('public', false), secret: countingLookup('secret', false), id: countingLookup('id', false) },
};

/** A window's counts after this request: all keys together, and the public key alone. */
export interface RateLimitCounts {
  count: number;
  publicCount: number;
}

/**
 * The key's project and, in the same statement, its rate-limit counts after this request: one round
 * trip instead of two on every keyed request. The window row is only touched for a known key.
 * `publicLimit` is the public key's share of the limit (requests per window); only public keys use it.
 */
export async function findProjectByKeyCounting(
  knex: Knex,
  key: string,
  windowStart: Date,
  publicLimit: number,
): Promise<({ project: ProjectRow; kind: KeyKind } & RateLimitCounts) | null> {
  const kind = keyKind(key);
  if (!kind) return null;
  const bindings = kind === 'public' ? [hashKey(key), windowStart, publicLimit] : [hashKey(key), windowStart];
  const { rows } = await prepared(knex, COUNTING_LOOKUP[knex.isTransaction ? 'inTransaction' : 'own'][kind], bindings);
  if (!rows[0]) return null;
  const { rate_limit_count: count, rate_limit_public_count: publicCount, async_commit: _async, ...project } = rows[0];
  return { project: project as ProjectRow, kind, count, publicCount };
}

/** findProjectByKeyCounting for a request that names its project by id (the session cookie's X-Project-Id). */
export async function findProjectByIdCounting(knex: Knex, id: string, windowStart: Date): Promise<{ project: ProjectRow; count: number } | null> {
  const { rows } = await prepared(knex, COUNTING_LOOKUP[knex.isTransaction ? 'inTransaction' : 'own'].id, [id, windowStart]);
  if (!rows[0]) return null;
  const { rate_limit_count: count, rate_limit_public_count: _public, async_commit: _async, ...project } = rows[0];
  return { project: project as ProjectRow, count };
}

export async function membership(knex: Knex, projectId: string, userId: string): Promise<Role | null> {
  const row = await knex('project_members').where({ project_id: projectId, user_id: userId }).first('role');
  return row ? (row.role as Role) : null;
}

/** The user's projects with their role and, when someone else added them, that person's address (`added_by_email`). */
export async function projectsOfUser(knex: Knex, userId: string): Promise<Array<ProjectRow & { role: Role; added_by_email: string | null }>> {
  return knex<ProjectRow>('projects')
    .join('project_members', 'project_members.project_id', 'projects.id')
    .leftJoin('users as adder', 'adder.id', 'project_members.added_by')
    .where('project_members.user_id', userId)
    .orderBy('projects.created_at', 'asc')
    .select('projects.*', 'project_members.role', 'adder.email as added_by_email');
}

/**
 * Tables a reset keeps: who may use the project and how it is set up (keys live on `projects`),
 * not what it holds. Every other table with a `project_id` column is wiped, so tables added later
 * are covered without touching this file.
 */
export const KEPT_ON_RESET = new Set([
  'projects',
  'project_members',
  // Named API keys (db/apiKeys.ts): who may use the project, like the sk_/pk_ pair on `projects`.
  'api_keys',
  'project_invites',
  // The log the invitation limits count: a reset must not hand out a fresh allowance.
  'invite_emails',
  'project_suspensions',
  'domains',
  'billing_limits',
  'billing_accounts',
  'billing_invoices',
  'billing_usage_carry',
  'rate_limits',
  // Bounced and complaining addresses stay suppressed: a reset must not let the project mail them again.
  'suppressions',
  // Uploaded images: mail already sent links to them.
  'uploads',
  // Who did what, the reset itself included: the record must outlive what it records.
  'audit_log',
]);

/**
 * The tables a reset wipes as the schema stands: the keys of its counts (a `project.reset` entry's
 * `deleted`), which the dashboard names in words (test/unit/auditValueWords.test.ts). The reset still
 * finds its tables in the schema, so a table added later is wiped before it is listed here;
 * test/integration/projectReset.test.ts fails until it is (and so until it has words).
 */
export const WIPED_ON_RESET = [
  'brands',
  'campaign_runs',
  'campaigns',
  'consent_records',
  'contact_confirmations',
  'contact_erasures',
  'contact_event_rollups',
  'contact_fields',
  'contact_views',
  'contacts',
  'email_engagements',
  'emails',
  'event_hourly_counts',
  'event_keys',
  'events',
  'forms',
  'idempotency_keys',
  'inbound_messages',
  'jobs',
  'marketing_sends',
  'segment_membership_changes',
  'segments',
  'send_throttle',
  'send_throttle_holds',
  'template_versions',
  'templates',
  'topics',
  'tracking_domains',
  'webhook_endpoints',
  'workflow_executions',
  'workflows',
] as const;

/** Rollups the statement triggers on `events` keep (db/eventRollups.ts). */
const DERIVED_FROM_EVENTS = new Set(['contact_event_rollups', 'event_hourly_counts']);

/** Project-scoped tables in an order that deletes referencing tables before the ones they reference. */
async function tablesToWipe(knex: Knex): Promise<string[]> {
  const columns = await knex.raw(
    `SELECT c.table_name FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.column_name = 'project_id' AND c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
        -- A partition's rows go with its parent's delete, which fires the parent's triggers (the rollups).
        AND NOT EXISTS (SELECT 1 FROM pg_class p WHERE p.relname = c.table_name AND p.relispartition)`,
  );
  const tables = new Set<string>(columns.rows.map((r: { table_name: string }) => r.table_name).filter((t: string) => !KEPT_ON_RESET.has(t)));
  const fks = await knex.raw(
    `SELECT child.relname AS child, parent.relname AS parent FROM pg_constraint c
       JOIN pg_class child ON child.oid = c.conrelid
       JOIN pg_class parent ON parent.oid = c.confrelid
       JOIN pg_namespace n ON n.oid = child.relnamespace
      WHERE c.contype = 'f' AND n.nspname = current_schema()`,
  );
  const referencedBy = new Map<string, Set<string>>();
  for (const { child, parent } of fks.rows as Array<{ child: string; parent: string }>) {
    if (child === parent || !tables.has(child) || !tables.has(parent)) continue;
    if (!referencedBy.has(parent)) referencedBy.set(parent, new Set());
    referencedBy.get(parent)!.add(child);
  }
  const ordered: string[] = [];
  const left = new Set(tables);
  while (left.size) {
    const ready = [...left].filter((t) => [...(referencedBy.get(t) ?? [])].every((child) => !left.has(child)));
    // A reference cycle cannot be ordered; its tables go last and rely on their ON DELETE actions.
    const batch = ready.length ? ready : [...left];
    for (const t of batch.sort()) {
      ordered.push(t);
      left.delete(t);
    }
  }
  // Kept by triggers on `events`: deleting the events writes them, so they go after everything else.
  const derived = ordered.filter((t) => DERIVED_FROM_EVENTS.has(t));
  return [...ordered.filter((t) => !DERIVED_FROM_EVENTS.has(t)), ...derived];
}

/** Deletes everything the project holds (see KEPT_ON_RESET) in one transaction; rows deleted per table. */
export async function resetProjectData(knex: Knex, projectId: string): Promise<Record<string, number>> {
  return knex.transaction(async (trx) => {
    // Member changes take the same lock, so a reset and a role change never interleave.
    await trx('projects').where({ id: projectId }).forUpdate().first('id');
    await carryOverEmailUsage(trx, projectId);
    const deleted: Record<string, number> = {};
    for (const table of await tablesToWipe(trx)) deleted[table] = await trx(table).where({ project_id: projectId }).del();
    return deleted;
  });
}

/** Onboarding checklist of the dashboard: which first steps the project has taken. */
export async function setupState(knex: Knex, projectId: string) {
  const exists = (table: string, where: (q: Knex.QueryBuilder) => Knex.QueryBuilder = (q) => q) =>
    where(knex(table).where({ project_id: projectId }))
      .select(knex.raw('1'))
      .limit(1)
      .then((rows) => rows.length > 0);
  const [hasDomain, hasVerifiedDomain, hasContact, hasTemplate, hasTrackedEvent, hasSentEmail] = await Promise.all([
    exists('domains'),
    exists('domains', (q) => q.where({ status: 'VERIFIED' })),
    exists('contacts'),
    exists('templates'),
    // Events the service emits itself do not show that the project tracks its own.
    exists('events', (q) => RESERVED_EVENT_FAMILIES.reduce((w, f) => w.whereNot('name', 'ilike', `${f}.%`), q)),
    exists('emails', (q) => q.whereIn('status', [...HANDED_OVER])),
  ]);
  const steps = { hasDomain, hasVerifiedDomain, hasContact, hasTemplate, hasTrackedEvent, hasSentEmail };
  const completed = Object.values(steps).filter(Boolean).length;
  const total = Object.keys(steps).length;
  return { ...steps, completed, total, done: completed === total };
}
