import type { z } from 'zod';
import type { ContactOut } from '../schemas/contacts';
import type { ContactPage, ContactRow } from '../../db/contactReaders';
import { estimatedFlag } from './counts';

/** Response shapes of the contacts routes, typed by their `*Out` schemas (api/schemas). */

/** The API shape of a contact. */
export function presentContact(row: ContactRow): z.input<typeof ContactOut> {
  return {
    id: row.id,
    email: row.email,
    subscribed: row.subscribed,
    data: row.data ?? {},
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

/** A page of the contact list or a search: the rows, the keyset cursor and the total, flagged when estimated. */
export const presentContactPage = (page: ContactPage) => ({
  data: page.rows.map(presentContact),
  cursor: page.cursor,
  hasMore: page.hasMore,
  total: page.total,
  ...estimatedFlag(page.estimated),
});
