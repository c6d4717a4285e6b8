import type { Knex } from 'knex';
import { countOrEstimate } from './contactCounts';
import { containsPattern } from './search';
import { decodeCursor, encodeCursor, isTimeKey, timeKeySql } from './cursors';
import { normalizeEmail } from './users';

/** Reading contacts: by id, by email, and the keyset-paginated list. The writers are db/contactWriters.ts. */

export interface ContactRow {
  id: string;
  project_id: string;
  email: string;
  subscribed: boolean;
  data: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

export async function findContact(db: Knex, projectId: string, id: string): Promise<ContactRow | undefined> {
  return db<ContactRow>('contacts').where({ project_id: projectId, id }).first();
}

export async function findContactByEmail(db: Knex, projectId: string, email: string): Promise<ContactRow | undefined> {
  return db<ContactRow>('contacts')
    .where({ project_id: projectId, email: normalizeEmail(email) })
    .first();
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
  /** Email or any `data` value contains it (the dashboard's search box). */
  search?: string;
  /** The email contains it: GET /contacts `search`, as the spec defines it. */
  emailSearch?: string;
  subscribed?: boolean;
  sort: ContactSort;
  dir: SortDir;
  /** A compiled filter tree (db/filters), over the contact aliased `c`. */
  filter?: { sql: string; bindings: readonly (string | number | boolean)[] };
  /** Without search or filter, a total the planner puts at or above this is estimated (db/contactCounts; 0: always exact). */
  estimateAbove?: number;
}

export interface ContactPage {
  rows: ContactRow[];
  /** Cursor of the last row when more rows follow, else null. */
  cursor: string | null;
  hasMore: boolean;
  /** Matching contacts; counted on the first page only (0 when `after` is given). */
  total: number;
  /** `total` is the planner's estimate (a large project's unfiltered list). */
  estimated: boolean;
}

/**
 * Contacts whose email or any `data` value contains `term` (case-insensitive, literal). Written
 * exactly as the trigram indexes of migration 065 are defined, so that both are used.
 */
export function whereSearchMatches(q: Knex.QueryBuilder, term: string): Knex.QueryBuilder {
  const pattern = containsPattern(term);
  return q.andWhere((w) => w.where('email', 'ilike', pattern).orWhereRaw('contact_search_text(data) ILIKE ?', [pattern]));
}

/** Keyset pagination over (sort key, id); never OFFSET. */
export async function listContacts(db: Knex, input: ListContactsInput): Promise<ContactPage> {
  const filtered = () => {
    const q = db<ContactRow>('contacts').where({ project_id: input.projectId });
    if (input.subscribed !== undefined) q.andWhere({ subscribed: input.subscribed });
    if (input.search) whereSearchMatches(q, input.search);
    if (input.emailSearch) q.andWhere('email', 'ilike', containsPattern(input.emailSearch));
    // The compiled tree names the row `c`: a semi-join keeps this query's own table unaliased.
    if (input.filter) q.andWhereRaw(`EXISTS (SELECT 1 FROM contacts c WHERE c.id = contacts.id AND (${input.filter.sql}))`, [...input.filter.bindings]);
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
  // Only the project and `subscribed` narrow an estimated total: their statistics make the planner's estimate close.
  const estimable = !input.search && !input.emailSearch && !input.filter;
  const [rows, counted] = await Promise.all([
    page as unknown as Promise<(ContactRow & { sort_key: string })[]>,
    input.after ? { count: 0, estimated: false } : countOrEstimate(db, filtered, estimable ? (input.estimateAbove ?? 0) : 0),
  ]);
  const hasMore = rows.length > input.limit;
  const kept = rows.slice(0, input.limit);
  const last = kept[kept.length - 1];
  return {
    rows: kept.map(({ sort_key: _key, ...row }) => row),
    cursor: hasMore && last ? encodeContactCursor({ sort: input.sort, key: last.sort_key, id: last.id }) : null,
    hasMore,
    total: counted.count,
    estimated: counted.estimated,
  };
}
