import type { Knex } from 'knex';
import { normalizeEmail } from './users';

/**
 * Project-wide contact queries of the dashboard's field tools: bulk email lookup, the distinct
 * values of a field, and removing a custom field from every contact. Data paths (`profile.tier`)
 * are always bound and split by Postgres (`string_to_array(?, '.')`), never spliced into SQL.
 */

export interface LookupResult {
  found: Array<{ id: string; email: string; subscribed: boolean }>;
  /** Normalised addresses with no contact in the project. */
  missing: string[];
}

/** Normalises and de-duplicates, then answers in request order from one indexed (project_id, email) query. */
export async function lookupContacts(db: Knex, projectId: string, emails: readonly string[]): Promise<LookupResult> {
  const wanted = [...new Set(emails.map(normalizeEmail))];
  if (wanted.length === 0) return { found: [], missing: [] };
  const rows: Array<{ id: string; email: string; subscribed: boolean }> = await db('contacts')
    .where('project_id', projectId)
    .whereIn('email', wanted)
    .select('id', 'email', 'subscribed');
  const byEmail = new Map(rows.map((r) => [r.email, r]));
  return {
    found: wanted.filter((e) => byEmail.has(e)).map((e) => byEmail.get(e)!),
    missing: wanted.filter((e) => !byEmail.has(e)),
  };
}

/** A field whose values can be listed: a core column or a `data` path. */
export type ValueField = { column: 'email' | 'subscribed' } | { dataPath: string };

export interface ValueCount {
  value: unknown;
  count: number;
}

/** The most frequent values of a field among the project's contacts (contacts without it are left out). */
export async function fieldValues(db: Knex, projectId: string, field: ValueField, limit: number): Promise<ValueCount[]> {
  const [expr, bindings] = 'column' in field ? [field.column, []] : [`data #> string_to_array(?, '.')`, [field.dataPath]];
  const { rows } = await db.raw(
    `SELECT ${expr} AS value, count(*)::int AS count
       FROM contacts
      WHERE project_id = ? AND ${expr} IS NOT NULL
      GROUP BY 1
      ORDER BY count DESC, 1
      LIMIT ?`,
    [...bindings, projectId, ...bindings, limit],
  );
  return rows;
}

const keyAtOrUnder = (path: string) => (q: Knex.QueryBuilder) => q.where('key', path).orWhereRaw(`starts_with(key, ? || '.')`, [path]);

/** Registered data keys at or beneath `path` (`profile` covers `profile.tier`). */
export async function registeredKeysUnder(db: Knex, projectId: string, path: string): Promise<string[]> {
  const rows = await db('contact_fields').where('project_id', projectId).andWhere(keyAtOrUnder(path)).orderBy('key').select('key');
  return rows.map((r: { key: string }) => r.key);
}

const FIELD_REMOVAL_BATCH = 1000;

/**
 * Removes `data.<path>` from every contact of the project, then its registry entries (the path's
 * and any beneath it). Contacts are walked by keyset over id, `batch` per UPDATE, each UPDATE its
 * own transaction, so a project with millions of contacts never holds one long transaction; a
 * concurrent data patch of a row only waits for that row's batch. The registry goes last, so an
 * interrupted removal can simply be run again. Returns how many contacts had the field.
 */
export async function removeDataField(db: Knex, projectId: string, path: string, batch = FIELD_REMOVAL_BATCH): Promise<number> {
  let updated = 0;
  let after = '';
  for (;;) {
    const { rows } = await db.raw(
      `WITH page AS (
         SELECT id FROM contacts WHERE project_id = ? AND id > ? ORDER BY id LIMIT ?
       ), changed AS (
         UPDATE contacts c
            SET data = c.data #- string_to_array(?, '.'), updated_at = now()
           FROM page
          WHERE c.id = page.id AND c.data #> string_to_array(?, '.') IS NOT NULL
          RETURNING 1
       )
       SELECT (SELECT max(id) FROM page) AS last, (SELECT count(*)::int FROM page) AS seen, (SELECT count(*)::int FROM changed) AS changed`,
      [projectId, after, batch, path, path],
    );
    const r = rows[0] as { last: string | null; seen: number; changed: number };
    updated += r.changed;
    if (r.seen < batch || r.last === null) break;
    after = r.last;
  }
  await db('contact_fields').where('project_id', projectId).andWhere(keyAtOrUnder(path)).del();
  return updated;
}
