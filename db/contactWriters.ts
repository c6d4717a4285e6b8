import type { Knex } from 'knex';
import { inTransaction } from './transaction';
import { prepared } from './prepared';
import { contactId, uuid } from '../lib/ids';
import { normalizeEmail } from './users';
import { recordEvent, EventRow, eventListenedSql } from './events';
import { registerFields, registryRows } from './fields';
import { writeTopicStates, TopicChange } from './topics';
import { consentSource, originBindings, recordConsent, ConsentOrigin } from './consent';
import type { ContactRow } from './contactReaders';
import type { ConsentSource } from '../lib/consentSources';
import { assertValidData, CONTACT_SUBSCRIBED, CONTACT_UNSUBSCRIBED, ContactData, fieldEntries, IDENTITY, splitData, SplitData } from '../lib/contactData';

/**
 * The contact writers, which apply the data rules of lib/contactData.ts (imports write through their
 * batch twin, db/contactBatchWriter.ts, which must keep the same rules): nobody else writes
 * `contacts.data` or `contacts.subscribed`.
 */

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
  /** Recorded in subscription events' data and the consent record (lib/consentSources.ts). */
  source?: ConsentSource;
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
  source?: ConsentSource;
  topics?: TopicChange[];
  origin?: ConsentOrigin;
}

/** Another contact of the project already has the requested email. */
export class EmailInUseError extends Error {
  constructor(readonly email: string) {
    super(`Another contact already uses ${email}`);
  }
}

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
  source?: ConsentSource;
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

/** true when a contact of the project was deleted (its events go with it). */
export async function deleteContact(db: Knex, projectId: string, id: string): Promise<boolean> {
  return (await db('contacts').where({ project_id: projectId, id }).del()) > 0;
}
