import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap, type BodyOf } from '../client';
import { keys } from '../queryKeys';

/** What a contact search matches (search, subscribed, filter): the body of POST /contacts/search without its paging. */
export type ContactMatching = Omit<BodyOf<'/contacts/search', 'post'>, 'limit' | 'cursor' | 'sort' | 'dir'>;

/** One page of POST /contacts/search; the previous page stays on screen while the next loads. */
export function useContacts(
  projectId: string,
  { matching, sort, cursor, limit }: { matching: ContactMatching; sort: 'createdAt' | 'email'; cursor: string | undefined; limit: number },
) {
  return useQuery({
    queryKey: keys.contacts.search(projectId, matching, sort, cursor),
    placeholderData: keepPreviousData,
    queryFn: () => unwrap(api.POST('/contacts/search', { body: { ...matching, limit, cursor, sort, dir: sort === 'email' ? 'asc' : 'desc' } })),
  });
}

/** The contact pickers' search (GET /contacts?search=): the first 10 by email; the last answer stays while the next loads. */
export function useContactPicker(projectId: string, search: string) {
  return useQuery({
    queryKey: keys.contacts.picker(projectId, search),
    placeholderData: keepPreviousData,
    queryFn: () => unwrap(api.GET('/contacts', { params: { query: { limit: 10, search: search || undefined, sort: 'email', dir: 'asc' } } })),
  });
}

/** GET /contacts/{id}. */
export function useContact(projectId: string, contactId: string) {
  return useQuery({
    queryKey: keys.contacts.one(projectId, contactId),
    queryFn: () => unwrap(api.GET('/contacts/{id}', { params: { path: { id: contactId } } })),
  });
}

/** GET /contacts/fields: the standard and custom fields with their types and coverage. `enabled` lets a closed menu wait. */
export function useContactFields(projectId: string, options: { enabled?: boolean } = {}) {
  return useQuery({ queryKey: keys.contactFields.all(projectId), queryFn: () => unwrap(api.GET('/contacts/fields')), ...options });
}
