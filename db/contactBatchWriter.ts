import type { Knex } from 'knex';
import { contactId } from '../lib/ids';
import { normalizeEmail } from './users';
import type { EventRow } from './events';
import { registerFields } from './fields';
import { consentSource } from './consent';
import type { ConsentSource } from '../lib/consentSources';
import {
  CONTACT_SUBSCRIBED,
  CONTACT_UNSUBSCRIBED,
  ContactData,
  ContactDataError,
  assertValidData,
  type FieldEntry,
  fieldEntries,
  splitData,
} from '../lib/contactData';

/**
 * upsertContact (db/contactWriters.ts) for many contacts at once: the same data rules, consent
 * records, field registration and subscription events, in one statement per batch instead of one
 * per contact. Imports use it (activities/bulk.ts); a 5,000-row batch costs one round trip.
 */

export interface BatchContact {
  email: string;
  /** Omitted: a new contact gets `defaultSubscribed`, an existing one keeps its state. */
  subscribed?: boolean;
  data?: ContactData;
}

export interface BatchWriteResult {
  /** Contacts that could not be written, by their index in the input, with the reason. */
  errors: { index: number; message: string }[];
  /** `contact.subscribed` / `contact.unsubscribed` rows written with them, to hand to routing once committed. */
  events: EventRow[];
  created: number;
  updated: number;
  /** Existing contacts the row changed nothing of (no write, no updated_at). */
  unchanged: number;
}

interface Item {
  id: string;
  email: string;
  subscribed: boolean | null;
  patch: ContactData;
  unset: string[];
}

/**
 * One statement writes a round of contacts with distinct emails, rule for rule as upsertContact's
 * does for one: lock the existing rows (one index probe each, in email order so two batches never
 * lock crosswise; the locking subquery is never flattened into a join, which the planner would run
 * as a scan of the project's contacts, a cost growing with every batch),
 * insert the new ones, merge each patch against its locked row (`||` sets, `-` deletes) and write
 * only rows it changes, record consent for new contacts and flips, and the flip's event against
 * the locked (true previous) state. A row another writer inserted after this statement's snapshot
 * is neither inserted nor updated: it comes back in `missing`, and the next statement sees it.
 */
const ROUND_SQL = `
WITH input AS (
  SELECT * FROM jsonb_to_recordset(?::jsonb) AS i(id text, email text, subscribed boolean, patch jsonb, unset text[])
), old AS (
  SELECT o.* FROM unnest(?::text[]) AS e(email)
  CROSS JOIN LATERAL (
    SELECT c.id, c.email, c.subscribed, c.data FROM contacts c WHERE c.project_id = ?::uuid AND c.email = e.email FOR NO KEY UPDATE
  ) o
), ins AS (
  INSERT INTO contacts (id, project_id, email, subscribed, data)
  SELECT i.id, ?::uuid, i.email, COALESCE(i.subscribed, ?::boolean), i.patch FROM input i
   WHERE NOT EXISTS (SELECT 1 FROM old WHERE old.email = i.email)
   ORDER BY i.email
  ON CONFLICT (project_id, email) DO NOTHING
  RETURNING id, email, subscribed
), upd AS (
  UPDATE contacts c
     SET data = (c.data || i.patch) - i.unset, subscribed = COALESCE(i.subscribed, c.subscribed), updated_at = now()
    FROM old JOIN input i ON i.email = old.email
   WHERE c.id = old.id
     AND (old.data, old.subscribed) IS DISTINCT FROM ((old.data || i.patch) - i.unset, COALESCE(i.subscribed, old.subscribed))
  RETURNING c.id, c.email, c.subscribed, old.subscribed AS previous
), result AS (
  SELECT id, email, subscribed, true AS is_new, NULL::boolean AS previous FROM ins
  UNION ALL SELECT id, email, subscribed, false, previous FROM upd
  UNION ALL SELECT id, email, subscribed, false, subscribed FROM old WHERE NOT EXISTS (SELECT 1 FROM upd WHERE upd.id = old.id)
), flips AS (
  INSERT INTO events (id, project_id, contact_id, name, data)
  SELECT gen_random_uuid(), ?::uuid, id, CASE WHEN subscribed THEN '${CONTACT_SUBSCRIBED}' ELSE '${CONTACT_UNSUBSCRIBED}' END, ?::jsonb
    FROM result WHERE NOT is_new AND subscribed IS DISTINCT FROM previous
  RETURNING id, project_id, contact_id, name, data, created_at
), consent AS (
  INSERT INTO consent_records (project_id, contact_id, scope, value, source)
  SELECT ?::uuid, id, 'global', subscribed, ?::text FROM result
   WHERE is_new OR subscribed IS DISTINCT FROM previous
)
SELECT 'missing' AS kind, i.email, NULL::json AS event FROM input i WHERE NOT EXISTS (SELECT 1 FROM result r WHERE r.email = i.email)
UNION ALL SELECT 'event', NULL, row_to_json(flips) FROM flips
UNION ALL SELECT 'counts', NULL, json_build_object(
  'created', (SELECT count(*) FROM ins), 'updated', (SELECT count(*) FROM upd), 'unchanged', (SELECT count(*) FROM old) - (SELECT count(*) FROM upd))`;

/** Rounds of distinct emails: a contact named twice in a batch gets its second row in the next round, in row order. */
function rounds(items: Item[]): Item[][] {
  const seen = new Map<string, number>();
  const out: Item[][] = [];
  for (const item of items) {
    const n = seen.get(item.email) ?? 0;
    seen.set(item.email, n + 1);
    (out[n] ??= []).push(item);
  }
  return out;
}

/**
 * Upserts `contacts` of one project by lowercased email, in input order: a contact named twice ends
 * as the per-row path would leave it (second row applied after the first). Runs several statements,
 * so it takes a transaction: the batch commits with the caller's bookkeeping or not at all. A row
 * whose data breaks the data rules is an error for that row only.
 */
export async function upsertContacts(
  trx: Knex.Transaction,
  input: { projectId: string; contacts: BatchContact[]; defaultSubscribed: boolean; source?: ConsentSource },
): Promise<BatchWriteResult> {
  const result: BatchWriteResult = { errors: [], events: [], created: 0, updated: 0, unchanged: 0 };
  const items: Item[] = [];
  const fields: FieldEntry[] = [];
  for (const [index, c] of input.contacts.entries()) {
    const data = c.data ?? {};
    try {
      assertValidData(data);
    } catch (err) {
      if (!(err instanceof ContactDataError)) throw err;
      result.errors.push({ index, message: err.message });
      continue;
    }
    const split = splitData(data);
    items.push({ id: contactId(), email: normalizeEmail(c.email), subscribed: c.subscribed ?? null, patch: split.set, unset: split.unset });
    fields.push(...fieldEntries(split.set));
  }
  const eventData = JSON.stringify(input.source ? { source: input.source } : {});
  const source = consentSource(input.source);
  for (const round of rounds(items)) {
    let pending = round;
    // Retried only for the race upsertContact retries too: another writer inserted one of these
    // emails after the statement's snapshot, so the statement wrote nothing for it.
    for (let attempt = 0; pending.length; attempt++) {
      if (attempt === 3) throw new Error('contact batch upsert kept racing with concurrent writers');
      const { rows } = await trx.raw(ROUND_SQL, [
        JSON.stringify(pending),
        pending.map((i) => i.email).sort(),
        input.projectId,
        input.projectId,
        input.defaultSubscribed,
        input.projectId,
        eventData,
        input.projectId,
        source,
      ]);
      const missing = new Set<string>();
      for (const r of rows as { kind: string; email: string | null; event: any }[]) {
        if (r.kind === 'missing') missing.add(r.email!);
        else if (r.kind === 'event') result.events.push({ ...r.event, created_at: new Date(r.event.created_at) });
        else {
          result.created += Number(r.event.created);
          result.updated += Number(r.event.updated);
          result.unchanged += Number(r.event.unchanged);
        }
      }
      pending = pending.filter((i) => missing.has(i.email));
    }
  }
  // After the contacts, as upsertContact registers after its write; first type seen per key wins.
  await registerFields(trx, input.projectId, fields);
  return result;
}
