import type { Knex } from 'knex';
import { listContacts, parseContactCursor, type ContactCursor, type ListContactsInput } from '../db/contactReaders';
import { compileFilter, loadFieldTypes } from '../db/filters';

/**
 * "The contacts the list shows": a filter tree, the search box and the subscribed switch, as the
 * dashboard's list asks for them (POST /contacts/search) and as bulk jobs take them (`matching`).
 * Both go through db/contactReaders `listContacts`, so a bulk job acts on exactly the rows listed.
 */
export interface ContactSelection {
  filter?: unknown;
  search?: string;
  subscribed?: boolean;
}

export type CompiledSelection = Pick<ListContactsInput, 'projectId' | 'search' | 'subscribed' | 'filter'>;

/** Throws db/filters FilterError when the tree does not fit the project's fields. */
export async function compileSelection(db: Knex, projectId: string, s: ContactSelection): Promise<CompiledSelection> {
  const filter = s.filter == null ? undefined : compileFilter(s.filter, { fieldTypes: await loadFieldTypes(db, projectId) });
  return { projectId, search: s.search || undefined, subscribed: s.subscribed, filter };
}

/** Page size while walking a selection: one staging batch of db/jobs. */
const WALK_PAGE = 1000;

/** Every selected contact's id, oldest first, read page by page (keyset) rather than held at once. */
export async function* selectedContactIds(db: Knex, selection: CompiledSelection): AsyncGenerator<string> {
  let after: ContactCursor | undefined;
  for (;;) {
    const page = await listContacts(db, { ...selection, limit: WALK_PAGE, sort: 'createdAt', dir: 'asc', after });
    for (const row of page.rows) yield row.id;
    // The page's own cursor keeps the key's microseconds, which a JS Date would lose.
    if (!page.hasMore || page.cursor === null) return;
    after = parseContactCursor(page.cursor, 'createdAt') ?? undefined;
    if (!after) return;
  }
}
