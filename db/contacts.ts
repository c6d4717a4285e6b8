import type { Knex } from 'knex';
import { containsPattern } from './search';
import { inTransaction } from './transaction';
import { prepared } from './prepared';
import { decodeCursor, encodeCursor, isTimeKey, timeKeySql } from './cursors';
import { contactId, uuid } from '../lib/ids';
import { normalizeEmail } from './users';
import { recordEvent, EventRow, eventListenedSql } from './events';
import { registerFields, registryRows, FieldEntry, FieldType } from './fields';
import { writeTopicStates, TopicChange } from './topics';
import { consentSource, originBindings, recordConsent, ConsentOrigin } from './consent';

/**
 * The contact data rules (spec "Contact data"), shared by every writer: POST/PATCH /contacts,
 * /v1/send, /v1/track, workflow UPDATE_CONTACT steps, imports and bulk jobs. Nobody else writes
 * `contacts.data` or `contacts.subscribed`.
 */

export type { FieldType } from './fields';
export { normalizeEmail };

export interface ContactRow {
  id: string;
  project_id: string;
  email: string;
  subscribed: boolean;
  data: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

export type ContactData = Record<string, unknown>;

// ───────────────────────────── pure rules ─────────────────────────────

/** Silently dropped from every `data` payload: they name core fields or the links templates get. */
export const RESERVED_DATA_KEYS: ReadonlySet<string> = new Set(['id', 'svc_id', 'svc_email', 'email', 'unsubscribeUrl', 'subscribeUrl', 'manageUrl']);

export const DATA_LIMITS = { maxKeysPerObject: 100, maxKeyLength: 100, maxDepth: 5 } as const;

export const CONTACT_SUBSCRIBED = 'contact.subscribed';
export const CONTACT_UNSUBSCRIBED = 'contact.unsubscribed';

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date);

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

/**
 * Spec type inference. Only the two ISO shapes count as dates, and only when they name a real
 * instant (2024-02-30 stays a string), so date filters can always cast a `date` field safely.
 */
export function inferType(value: unknown): FieldType {
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string' && isIsoDate(value)) return 'date';
  return 'string';
}

function isIsoDate(s: string): boolean {
  const dateOnly = DATE_ONLY.test(s);
  if (!dateOnly && !DATE_TIME.test(s)) return false;
  const t = new Date(dateOnly ? `${s}T00:00:00Z` : s);
  return !Number.isNaN(t.getTime()) && t.toISOString().slice(0, 19) === (dateOnly ? `${s}T00:00:00` : s.slice(0, 19));
}

export interface DataProblem {
  path: string[];
  message: string;
}

const MAX_REPORTED_PROBLEMS = 20;

/**
 * Size and shape limits of a `data` payload; empty when it is acceptable. Keys may not contain "."
 * because dotted paths address nested fields (`profile.tier`) in the registry, filters and templates.
 */
export function dataProblems(data: ContactData): DataProblem[] {
  const problems: DataProblem[] = [];
  const { maxKeysPerObject, maxKeyLength, maxDepth } = DATA_LIMITS;
  const walk = (obj: Record<string, unknown>, path: string[], depth: number) => {
    const keys = Object.keys(obj);
    if (depth > maxDepth) return void problems.push({ path, message: `objects may be nested at most ${maxDepth} levels deep` });
    if (keys.length > maxKeysPerObject) problems.push({ path, message: `at most ${maxKeysPerObject} keys per object (got ${keys.length})` });
    for (const key of keys) {
      if (problems.length >= MAX_REPORTED_PROBLEMS) return;
      const at = [...path, key];
      if (key.length === 0 || key.length > maxKeyLength) problems.push({ path: at, message: `keys must be 1 to ${maxKeyLength} characters` });
      else if (key.includes('.')) problems.push({ path: at, message: 'keys may not contain "." (nest an object instead)' });
      if (isPlainObject(obj[key])) walk(obj[key] as Record<string, unknown>, at, depth + 1);
    }
  };
  walk(data, [], 1);
  return problems.slice(0, MAX_REPORTED_PROBLEMS);
}

/** Thrown by the writers below when a caller skipped request validation; map it to 422/400. */
export class ContactDataError extends Error {
  constructor(readonly problems: DataProblem[]) {
    super(problems.map((p) => `data${p.path.map((k) => `.${k}`).join('')}: ${p.message}`).join('; '));
  }
}

function assertValidData(data: ContactData): void {
  const problems = dataProblems(data);
  if (problems.length) throw new ContactDataError(problems);
}

export interface SplitData {
  /** Keys to write (jsonb `||`). */
  set: ContactData;
  /** Keys to delete (jsonb `-`). */
  unset: string[];
  /** `{ value, persistent: false }` values: for this send/track only, never stored. */
  oneOff: ContactData;
}

/** `{ value, persistent }` and nothing else: the spec's wrapper for per-call values. */
function asWrapper(v: unknown): { value: unknown; persistent: boolean } | null {
  if (!isPlainObject(v)) return null;
  const keys = Object.keys(v);
  if (keys.length !== 2 || !('value' in v) || typeof v.persistent !== 'boolean') return null;
  return { value: v.value, persistent: v.persistent };
}

/**
 * Splits a `data` patch by the spec rules, applied to top-level keys: reserved keys dropped, null
 * deletes, "" keeps the existing value, `{ value, persistent: false }` is one-off. A wrapper with
 * `persistent: true` is unwrapped and its value follows the same rules. Any other value, plain
 * objects included, is stored as a whole (a nested object replaces the previous one).
 */
export function splitData(patch: ContactData = {}): SplitData {
  const set: [string, unknown][] = [];
  const unset: string[] = [];
  const oneOff: [string, unknown][] = [];
  for (const [key, raw] of Object.entries(patch)) {
    if (RESERVED_DATA_KEYS.has(key)) continue;
    const wrapper = asWrapper(raw);
    if (wrapper && !wrapper.persistent) {
      oneOff.push([key, wrapper.value]);
      continue;
    }
    const value = wrapper ? wrapper.value : raw;
    if (value === null) unset.push(key);
    else if (value !== '' && value !== undefined) set.push([key, value]);
  }
  // fromEntries (not assignment) so a "__proto__" key stays an ordinary own key.
  return { set: Object.fromEntries(set), unset, oneOff: Object.fromEntries(oneOff) };
}

/**
 * The registry entries a stored patch implies: every non-null, non-empty leaf, nested ones as
 * dotted keys (`profile.tier`). Arrays are leaves (typed `string`, the spec's "anything else").
 */
export function fieldEntries(set: ContactData, prefix = ''): FieldEntry[] {
  const out: FieldEntry[] = [];
  for (const [key, value] of Object.entries(set)) {
    const path = prefix + key;
    if (isPlainObject(value)) out.push(...fieldEntries(value, `${path}.`));
    else if (value !== null && value !== '' && value !== undefined) out.push({ key: path, type: inferType(value) });
  }
  return out;
}

// ───────────────────────────── writers ─────────────────────────────

export interface ContactWriteResult {
  contact: ContactRow;
  isNew: boolean;
  /** Whether email, subscription or stored data differ from before (always true for a new contact). */
  changed: boolean;
  /** Stored data after the patch plus the one-off values: what templates render with. */
  renderData: ContactData;
  /** `contact.subscribed` / `contact.unsubscribed` rows written in the same transaction (for routing to workflows). */
  events: EventRow[];
}

export interface UpsertContactInput {
  projectId: string;
  email: string;
  /** Omitted: a new contact gets `defaultSubscribed`, an existing one keeps its state. */
  subscribed?: boolean;
  data?: ContactData;
  /** Per entry point: /v1/send false, /v1/track true, POST /contacts true. */
  defaultSubscribed: boolean;
  /** Recorded in subscription events' data (`api`, `send`, `track`, `workflow`, `import`, …). */
  source?: string;
  /** Topic states to set (db/topics writeTopicStates), resolved from the caller's keys. */
  topics?: TopicChange[];
  /** The person's browser, for the consent record (the link pages). */
  origin?: ConsentOrigin;
}

export interface UpdateContactInput {
  projectId: string;
  contactId: string;
  email?: string;
  subscribed?: boolean;
  data?: ContactData;
  source?: string;
  topics?: TopicChange[];
  origin?: ConsentOrigin;
}

/** Another contact of the project already has the requested email. */
export class EmailInUseError extends Error {
  constructor(readonly email: string) {
    super(`Another contact already uses ${email}`);
  }
}

/** Variable name → contact column; shared by identityVariables and its SQL twin. */
const IDENTITY = [
  ['id', 'id'],
  ['email', 'email'],
  ['svc_id', 'id'],
  ['svc_email', 'email'],
] as const;
const IDENTITY_SQL = `jsonb_build_object(${IDENTITY.map(([name, column]) => `'${name}', ${column}`).join(', ')})`;

/**
 * A row that belongs to the contact and is written in the same statement as its upsert (the
 * tracked event, the sent email), so the pair commits together without a transaction of its own.
 * The statement is prepared (db/prepared.ts): fixed text, named columns.
 * `sql` is an `INSERT … SELECT … FROM written … RETURNING …` where `written` is the contact row
 * after the upsert plus `variables`: what its templates render with (stored data, one-off values,
 * identity variables), the SQL twin of `{ ...renderData, ...identityVariables(contact) }`.
 */
export interface LinkedInsert {
  sql: string;
  bindings: Knex.RawBinding[];
}

/** The subscription flip an upsert may record, and the event a caller links to the contact. */
const eventInsert = (name: string, data: string) =>
  `INSERT INTO events (id, project_id, contact_id, name, data)
   SELECT ?::uuid, project_id, id, ${name}, ${data}::jsonb FROM written`;

// Named, not `*`: the statement is prepared (db/prepared.ts). The ContactRow and EventRow columns.
const CONTACT_COLUMNS = ['id', 'project_id', 'email', 'subscribed', 'data', 'created_at', 'updated_at'];
const EVENT_COLUMNS = 'id, project_id, contact_id, name, data, created_at';

/**
 * A tracked event for the written contact (`data` as given: one-off values included), written
 * already routed when nothing can act on it (eventListenedSql): no routing pass, no Temporal start.
 * `settled` says which it was; a settled event is still checked for a wait that committed while
 * this statement ran (EventHandOff.recheck), as the campaign's `email.sent` is.
 */
export function linkedEvent(e: { id?: string; name: string; data?: ContactData }): LinkedInsert {
  return { sql: LINKED_EVENT_SQL, bindings: [e.id ?? uuid(), e.name, JSON.stringify(e.data ?? {})] };
}
// One string, built once: the statement's text is looked up by value on every request (db/prepared.ts).
const LINKED_EVENT_SQL = `INSERT INTO events (id, project_id, contact_id, name, data, routed_at)
   SELECT n.id, n.project_id, n.contact_id, n.name, n.data,
          CASE WHEN ${eventListenedSql('n.project_id', 'n.contact_id', 'n.name')} THEN NULL ELSE now() END
     FROM (SELECT ?::uuid AS id, project_id, id AS contact_id, ?::text AS name, ?::jsonb AS data FROM written) n
   RETURNING ${EVENT_COLUMNS}, routed_at IS NOT NULL AS settled`;

/**
 * One statement: lock the existing row (reading its latest committed state, not the statement's
 * snapshot, when a concurrent writer held it), or insert it; merge the patch in SQL (`||` sets, `- text[]`
 * deletes) against the locked row, so concurrent patches of different keys never lose each other;
 * register the new keys' types (ON CONFLICT DO NOTHING: the first writer wins; key order so two
 * writers never deadlock); record a subscription flip against the locked (true previous) state; and
 * insert the caller's linked row. A patch that changes nothing leaves the row, updated_at included,
 * untouched; whether it changes anything is judged on `old` (the locked row), never on `c`, whose
 * WHERE is first evaluated on the snapshot's version and would drop a row a concurrent writer changed. FOR NO KEY UPDATE serializes writers of the row without blocking inserts of rows that
 * reference it (events, emails).
 */
const upsertSql = (linked: string | null) => `
WITH old AS (
  SELECT ${CONTACT_COLUMNS.join(', ')} FROM contacts WHERE project_id = ? AND email = ? FOR NO KEY UPDATE
), ins AS (
  INSERT INTO contacts (id, project_id, email, subscribed, data)
  SELECT ?::text, ?::uuid, ?::text, ?::boolean, ?::jsonb WHERE NOT EXISTS (SELECT 1 FROM old)
  ON CONFLICT (project_id, email) DO NOTHING
  RETURNING ${CONTACT_COLUMNS.join(', ')}
), upd AS (
  UPDATE contacts c
     SET data = (c.data || ?::jsonb) - ?::text[], subscribed = COALESCE(?::boolean, c.subscribed), updated_at = now()
    FROM old
   WHERE c.id = old.id
     AND (old.data, old.subscribed) IS DISTINCT FROM ((old.data || ?::jsonb) - ?::text[], COALESCE(?::boolean, old.subscribed))
  RETURNING ${CONTACT_COLUMNS.map((c) => `c.${c}`).join(', ')}
), result AS (
  SELECT ins.*, true AS is_new, true AS changed, NULL::boolean AS previous FROM ins
  UNION ALL SELECT upd.*, false, true, old.subscribed FROM upd, old
  UNION ALL SELECT old.*, false, false, old.subscribed FROM old WHERE NOT EXISTS (SELECT 1 FROM upd)
), written AS (
  SELECT result.*, result.data || ?::jsonb || ${IDENTITY_SQL} AS variables FROM result
), fields AS (
  INSERT INTO contact_fields (project_id, key, type)
  SELECT ?::uuid, f.key, f.type FROM unnest(?::text[], ?::text[]) WITH ORDINALITY AS f(key, type, n)
   WHERE EXISTS (SELECT 1 FROM result) ORDER BY f.n
  ON CONFLICT (project_id, key) DO NOTHING
), flip AS (
  ${eventInsert(`CASE WHEN subscribed THEN '${CONTACT_SUBSCRIBED}' ELSE '${CONTACT_UNSUBSCRIBED}' END`, '?')}
   WHERE NOT is_new AND subscribed IS DISTINCT FROM previous
  RETURNING ${EVENT_COLUMNS}
), consent AS (
  INSERT INTO consent_records (project_id, contact_id, scope, value, source, ip, user_agent)
  SELECT project_id, id, 'global', subscribed, ?::text, ?::text, ?::text FROM written
   WHERE is_new OR subscribed IS DISTINCT FROM previous
)${linked === null ? '' : `, linked AS (\n  ${linked}\n)`}
SELECT result.*, (SELECT row_to_json(flip) FROM flip) AS flip_event,
       ${linked === null ? 'NULL' : '(SELECT row_to_json(linked) FROM linked)'} AS linked_row
  FROM result`;
const PLAIN_UPSERT_SQL = upsertSql(null);
/** The upsert around each linked statement, built once per linked text rather than per request. */
const linkedUpserts = new Map<string, string>();
const linkedUpsertSql = (linked: string) => {
  let sql = linkedUpserts.get(linked);
  if (sql === undefined) linkedUpserts.set(linked, (sql = upsertSql(linked)));
  return sql;
};

/**
 * Upserts by (project, lowercased email). A newly created contact emits no subscription event:
 * only a change of an existing contact's state does. One statement, so it needs no transaction;
 * inside a caller's it commits with the caller's other writes. Safe under concurrency: a racing
 * insert of the same email makes the statement write nothing, and the retry updates that row.
 */
export async function upsertContact(db: Knex, input: UpsertContactInput): Promise<ContactWriteResult> {
  return writeWithTopics(db, input, null);
}

/** upsertContact plus a linked row (see LinkedInsert), returned as JSON (timestamps as strings). */
export async function upsertContactWith<L = Record<string, unknown>>(
  db: Knex,
  input: UpsertContactInput,
  linked: LinkedInsert,
): Promise<ContactWriteResult & { linked: L }> {
  return writeWithTopics(db, input, linked) as Promise<ContactWriteResult & { linked: L }>;
}

/**
 * Topic states ride in a transaction with the upsert, whose statement locks the contact row first
 * (writeTopicStates relies on that lock); without topics the upsert stays one statement.
 */
async function writeWithTopics(db: Knex, input: UpsertContactInput, linked: LinkedInsert | null): Promise<ContactWriteResult & { linked?: unknown }> {
  const topics = input.topics;
  if (!topics?.length) return writeContact(db, input, linked);
  return inTransaction(db, async (trx) => {
    const r = await writeContact(trx, input, linked);
    const events = await writeTopicStates(trx, r.contact, topics, { source: input.source, origin: input.origin, isNew: r.isNew });
    return { ...r, events: [...r.events, ...events] };
  });
}

async function writeContact(db: Knex, input: UpsertContactInput, linked: LinkedInsert | null): Promise<ContactWriteResult & { linked?: unknown }> {
  const data = input.data ?? {};
  assertValidData(data);
  const split = splitData(data);
  const email = normalizeEmail(input.email);
  const set = JSON.stringify(split.set);
  const fields = registryRows(fieldEntries(split.set));
  const bindings: Knex.RawBinding[] = [
    input.projectId,
    email,
    contactId(),
    input.projectId,
    email,
    input.subscribed ?? input.defaultSubscribed,
    set,
    set,
    split.unset,
    input.subscribed ?? null,
    set,
    split.unset,
    input.subscribed ?? null,
    JSON.stringify(split.oneOff),
    input.projectId,
    fields.map((f) => f.key),
    fields.map((f) => f.type),
    uuid(),
    JSON.stringify(input.source ? { source: input.source } : {}),
    consentSource(input.source),
    ...originBindings(input.origin),
    ...(linked?.bindings ?? []),
  ];
  // Retried only for the one race left: another writer inserted the email after this statement's
  // snapshot (or the row it found was deleted), so it wrote nothing; the next snapshot sees that row.
  for (let attempt = 0; attempt < 3; attempt++) {
    const { rows } = await prepared(db, linked ? linkedUpsertSql(linked.sql) : PLAIN_UPSERT_SQL, bindings);
    const row = rows[0];
    if (!row) continue;
    const { is_new: isNew, changed, previous: _previous, flip_event: flip, linked_row: linkedRow, ...contact } = row;
    const events: EventRow[] = flip ? [{ ...flip, created_at: new Date(flip.created_at) }] : [];
    return { contact, isNew, changed, renderData: { ...contact.data, ...split.oneOff }, events, linked: linkedRow ?? undefined };
  }
  throw new Error('contact upsert kept racing with concurrent writers');
}

/** Updates a contact of the project; null when it does not exist there. Throws EmailInUseError. */
export async function updateContact(db: Knex, input: UpdateContactInput): Promise<ContactWriteResult | null> {
  const data = input.data ?? {};
  assertValidData(data);
  const split = splitData(data);
  return inTransaction(db, async (trx) => {
    const existing = await trx<ContactRow>('contacts').where({ project_id: input.projectId, id: input.contactId }).forUpdate().first();
    if (!existing) return null;
    const email = input.email === undefined ? undefined : normalizeEmail(input.email);
    const r = await applyChange(trx, existing, { email, subscribed: input.subscribed, split, source: input.source, origin: input.origin });
    const events = await writeTopicStates(trx, r.contact, input.topics ?? [], { source: input.source, origin: input.origin });
    return { ...r, events: [...r.events, ...events] };
  });
}

interface Change {
  email?: string;
  subscribed?: boolean;
  split: SplitData;
  source?: string;
  origin?: ConsentOrigin;
}

/**
 * One UPDATE merges the patch in SQL (`||` sets, `-` deletes) against the row's current data, so
 * concurrent patches of different keys never lose each other. `existing` must be locked (FOR UPDATE)
 * by the caller's transaction; that lock is what makes its `subscribed` the true previous state.
 * A patch that changes nothing leaves the row, including updated_at, untouched.
 */
async function applyChange(trx: Knex.Transaction, existing: ContactRow, change: Change): Promise<ContactWriteResult> {
  const { split } = change;
  const deletes = split.unset.map(() => ' - ?::text').join('');
  // Checked first so the common case does not abort a caller's transaction; the unique index
  // still decides a race, caught below.
  if (change.email && change.email !== existing.email) {
    const taken = await trx('contacts').where({ project_id: existing.project_id, email: change.email }).first('id');
    if (taken) throw new EmailInUseError(change.email);
  }
  let updated: ContactRow | undefined;
  try {
    const { rows } = await trx.raw(
      `UPDATE contacts c
          SET data = n.data, subscribed = n.subscribed, email = n.email, updated_at = now()
         FROM (SELECT id,
                      (data || ?::jsonb)${deletes} AS data,
                      COALESCE(?::boolean, subscribed) AS subscribed,
                      COALESCE(?::text, email) AS email
                 FROM contacts WHERE id = ?) n
        WHERE c.id = n.id AND (c.data, c.subscribed, c.email) IS DISTINCT FROM (n.data, n.subscribed, n.email)
        RETURNING c.*`,
      [JSON.stringify(split.set), ...split.unset, change.subscribed ?? null, change.email ?? null, existing.id],
    );
    updated = rows[0];
  } catch (err: any) {
    if (err?.code === '23505' && change.email) throw new EmailInUseError(change.email);
    throw err;
  }
  const contact = updated ?? existing;
  await registerFields(trx, existing.project_id, fieldEntries(split.set));
  const events: EventRow[] = [];
  if (contact.subscribed !== existing.subscribed) {
    await recordConsent(trx, [
      { projectId: contact.project_id, contactId: contact.id, scope: 'global', value: contact.subscribed, source: change.source, origin: change.origin },
    ]);
    events.push(
      await recordEvent(trx, {
        projectId: contact.project_id,
        contactId: contact.id,
        name: contact.subscribed ? CONTACT_SUBSCRIBED : CONTACT_UNSUBSCRIBED,
        data: change.source ? { source: change.source } : {},
      }),
    );
  }
  return { contact, isNew: false, changed: !!updated, renderData: { ...contact.data, ...split.oneOff }, events };
}

// ───────────────────────────── readers ─────────────────────────────

export async function findContact(db: Knex, projectId: string, id: string): Promise<ContactRow | undefined> {
  return db<ContactRow>('contacts').where({ project_id: projectId, id }).first();
}

export async function findContactByEmail(db: Knex, projectId: string, email: string): Promise<ContactRow | undefined> {
  return db<ContactRow>('contacts')
    .where({ project_id: projectId, email: normalizeEmail(email) })
    .first();
}

/** true when a contact of the project was deleted (its events go with it). */
export async function deleteContact(db: Knex, projectId: string, id: string): Promise<boolean> {
  return (await db('contacts').where({ project_id: projectId, id }).del()) > 0;
}

export type ContactSort = 'email' | 'createdAt';
export type SortDir = 'asc' | 'desc';

/** Position after the last row of a page: the sort it belongs to, that row's sort key, its id. */
export interface ContactCursor {
  sort: ContactSort;
  key: string;
  id: string;
}

export const encodeContactCursor = (c: ContactCursor) => encodeCursor([c.sort, c.key, c.id]);

/** null for anything this API did not hand out for this sort (db/cursors). */
export function parseContactCursor(raw: string, sort: ContactSort): ContactCursor | null {
  const v = decodeCursor(raw, 3);
  if (!v || v[0] !== sort || (sort === 'createdAt' && !isTimeKey(v[1]))) return null;
  return { sort, key: v[1], id: v[2] };
}

export interface ListContactsInput {
  projectId: string;
  limit: number;
  after?: ContactCursor;
  search?: string;
  subscribed?: boolean;
  sort: ContactSort;
  dir: SortDir;
}

export interface ContactPage {
  rows: ContactRow[];
  /** Cursor of the last row when more rows follow, else null. */
  cursor: string | null;
  hasMore: boolean;
  /** Matching contacts; counted on the first page only (0 when `after` is given). */
  total: number;
}

/** Keyset pagination over (sort key, id); never OFFSET. */
export async function listContacts(db: Knex, input: ListContactsInput): Promise<ContactPage> {
  const filtered = () => {
    const q = db<ContactRow>('contacts').where({ project_id: input.projectId });
    if (input.subscribed !== undefined) q.andWhere({ subscribed: input.subscribed });
    if (input.search) q.andWhere('email', 'ilike', containsPattern(input.search));
    return q;
  };
  const column = input.sort === 'email' ? 'email' : 'created_at';
  const cmp = input.dir === 'asc' ? '>' : '<';
  const page = filtered()
    .select('*', db.raw(`${input.sort === 'email' ? 'email' : timeKeySql('created_at')} AS sort_key`))
    .orderBy([
      { column, order: input.dir },
      { column: 'id', order: input.dir },
    ])
    .limit(input.limit + 1);
  if (input.after) {
    const keyParam = input.sort === 'email' ? '?' : '?::timestamptz';
    page.andWhereRaw(`(${column}, id) ${cmp} (${keyParam}, ?)`, [input.after.key, input.after.id]);
  }
  const [rows, total] = await Promise.all([
    page as unknown as Promise<(ContactRow & { sort_key: string })[]>,
    input.after
      ? 0
      : filtered()
          .count<{ count: number }[]>('* as count')
          .then((r) => Number(r[0].count)),
  ]);
  const hasMore = rows.length > input.limit;
  const kept = rows.slice(0, input.limit);
  const last = kept[kept.length - 1];
  return {
    rows: kept.map(({ sort_key: _key, ...row }) => row),
    cursor: hasMore && last ? encodeContactCursor({ sort: input.sort, key: last.sort_key, id: last.id }) : null,
    hasMore,
    total,
  };
}

/**
 * A contact's identity as templates see it: the reserved names (`id`, `email`, `svc_id`, `svc_email`)
 * are the service's own, which is why they are dropped from stored `data`.
 */
export function identityVariables(contact: { id: string; email: string }): Record<string, unknown> {
  return Object.fromEntries(IDENTITY.map(([name, column]) => [name, contact[column]]));
}
