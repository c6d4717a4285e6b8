import { z } from 'zod';
import { Timestamp } from './common';
import { FilterTree } from './filters';

/** At most this many columns a view shows: a wider table is not one anybody reads. */
const MAX_VIEW_COLUMNS = 30;

export const ViewColumn = z
  .string()
  .max(300)
  .regex(/^(id|email|subscribed|createdAt|updatedAt|data\.[^.]+(\.[^.]+)*)$/, 'a column is id, email, subscribed, createdAt, updatedAt or data.<key>[.<key>…]')
  .describe('id, email, subscribed, createdAt, updatedAt or data.<key>[.<key>…]');

const ViewFields = {
  name: z.string().trim().min(1).max(100),
  filter: FilterTree.nullable().describe('the filter tree of the list (as segments); null: every contact'),
  search: z.string().max(320).nullable().describe('the search box (GET /contacts `search`); null: none'),
  columns: z.array(ViewColumn).max(MAX_VIEW_COLUMNS).describe('the columns shown, in order'),
};

export const ContactViewCreate = z.object({
  name: ViewFields.name,
  filter: ViewFields.filter.default(null),
  search: ViewFields.search.default(null),
  columns: ViewFields.columns.default(['email', 'subscribed', 'createdAt']),
});

export const ContactViewUpdate = z
  .object({
    name: ViewFields.name.optional(),
    filter: ViewFields.filter.optional(),
    search: ViewFields.search.optional(),
    columns: ViewFields.columns.optional(),
  })
  .strict();

export const ContactViewOut = z
  .object({
    id: z.string(),
    name: z.string(),
    filter: FilterTree.nullable(),
    search: z.string().nullable(),
    columns: z.array(z.string()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'ContactView' });

export const ContactViewListOut = z.object({ data: z.array(ContactViewOut) });
