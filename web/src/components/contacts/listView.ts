import { i18n } from '../../i18n';
import type { FilterTree } from '../FilterBuilder';
import type { BodyOf, ResponseOf } from '../../api/client';

/**
 * What the contacts list shows: a filter tree, the search box and the columns. A saved view
 * (GET/POST /contact-views) is exactly this, named and shared with the project.
 */
export interface ListView {
  filter: FilterTree | null;
  search: string;
  columns: string[];
}

export type SavedView = ResponseOf<'/contact-views', 'get'>['data'][number];
export type Contact = ResponseOf<'/contacts/search', 'post'>['data'][number];
/** The `matching` of the bulk routes: the whole selection, not a page of ids. */
export type Matching = NonNullable<BodyOf<'/contacts/bulk-unsubscribe', 'post'>['matching']>;

export const DEFAULT_COLUMNS = ['email', 'subscribed', 'createdAt'];
export const DEFAULT_VIEW: ListView = { filter: null, search: '', columns: DEFAULT_COLUMNS };

/** The standard columns; a custom field's column is `data.<key>`. */
export const STANDARD_COLUMNS = ['email', 'subscribed', 'createdAt', 'updatedAt'] as const;
type StandardColumn = (typeof STANDARD_COLUMNS)[number];
const isStandard = (column: string): column is StandardColumn => (STANDARD_COLUMNS as readonly string[]).includes(column);

/** A column's header: a standard one in the dashboard's language, a custom field by its key (the project's own word). */
export const columnLabel = (column: string) => (isStandard(column) ? i18n.getFixedT(null, 'contacts')(`columns.${column}`) : column.replace(/^data\./, ''));

export const viewOf = (v: SavedView): ListView => ({ filter: (v.filter as FilterTree | null) ?? null, search: v.search ?? '', columns: v.columns });

/** The list's selection as the API takes it (POST /contacts/search, bulk `matching`). */
export const matchingOf = (view: ListView, subscribed: boolean | undefined): Matching => ({
  ...(view.filter ? { filter: view.filter as never } : {}),
  ...(view.search.trim() ? { search: view.search.trim() } : {}),
  ...(subscribed === undefined ? {} : { subscribed }),
});

/** A data field's value at a dotted path, as a cell shows it. */
export function fieldCell(data: Record<string, unknown>, path: string): string {
  let v: unknown = data;
  for (const key of path.split('.')) {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return '';
    v = (v as Record<string, unknown>)[key];
  }
  return v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v);
}
