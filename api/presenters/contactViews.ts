import type { z } from 'zod';
import type { ContactViewOut } from '../schemas/contactViews';
import type { ContactViewRow } from '../../db/contactViews';

export function presentContactView(row: ContactViewRow): z.input<typeof ContactViewOut> {
  return {
    id: row.id,
    name: row.name,
    filter: (row.filter ?? null) as z.input<typeof ContactViewOut>['filter'],
    search: row.search,
    columns: row.columns,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}
