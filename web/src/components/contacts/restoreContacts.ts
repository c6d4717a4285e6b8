import { api, forProject, type ResponseOf, unwrap } from '../../api/client';
import { numberWords } from '../../api/dates';
import { i18n } from '../../i18n';

type Contact = ResponseOf<'/contacts/{id}', 'get'>;

/** Up to this many deleted contacts can be brought back by "Undo"; a larger delete asks first and has none. */
export const UNDO_LIMIT = 100;

/** What "Undo" of a delete needs, read before the delete: each contact with its fields and topic choices. */
export async function snapshotContacts(ids: string[]): Promise<Contact[] | null> {
  if (ids.length > UNDO_LIMIT) return null;
  try {
    return await Promise.all(ids.map((id) => unwrap(api.GET('/contacts/{id}', { params: { path: { id } } }))));
  } catch {
    // Not readable (one just went, a network fault): the delete goes on without an Undo rather than not at all.
    return null;
  }
}

/**
 * The "Undo" of deleting contacts: POST /contacts re-creates each with its address, subscription, fields
 * and topic choices (no double opt-in mail: these people had already agreed). What a delete erased stays
 * gone: the contact's id and creation date, its events, emails, workflow runs and consent records.
 */
export async function restoreContacts(projectId: string, contacts: Contact[]): Promise<string> {
  for (const c of contacts) {
    await unwrap(
      // The project is named here, not left to the client's middleware: Undo outlives the page (its toast
      // stays while the person opens another project), and the contacts go back where they were deleted.
      api.POST('/contacts', {
        headers: forProject(projectId),
        body: { email: c.email, subscribed: c.subscribed, data: c.data, ...(c.topics ? { topics: c.topics } : {}), doubleOptIn: false },
      }),
    );
  }
  const n = contacts.length;
  const t = i18n.getFixedT(null, 'contacts');
  return n === 1 ? t('bulk.restoredOne', { email: contacts[0].email }) : t('bulk.restored', { n: numberWords(n) });
}
