import { z } from 'zod';
import { FilterTree } from './filters';
import { ContactListQuery } from './contacts';

/** Which contacts: the list's filter tree, search and subscribed switch (services/contactSelection). */
export const ContactSelection = z.object({
  filter: FilterTree.nullable().optional().describe('a filter tree (as segments); absent or null: every contact'),
  search: z.string().max(320).optional().describe('as GET /contacts `search`'),
  subscribed: z.boolean().optional(),
});

/** GET /contacts with a filter tree, which does not fit a query string: the same page, cursor and sorts. */
export const ContactSearchBody = ContactSelection.extend({
  limit: ContactListQuery.shape.limit,
  cursor: ContactListQuery.shape.cursor,
  sort: ContactListQuery.shape.sort,
  dir: ContactListQuery.shape.dir,
});
