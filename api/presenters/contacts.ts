import type { z } from 'zod';
import type { ContactOut } from '../schemas/contacts';
import type { ContactRow } from '../../db/contactReaders';

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
