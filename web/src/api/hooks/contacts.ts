import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type BodyOf, type ResponseOf } from '../client';
import { keys } from '../queryKeys';
import type { Then } from './then';

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

/** One page of the emails sent to a contact (GET /emails?contactId=), newest first, by cursor. */
export function useContactEmails(projectId: string, contactId: string, cursor: string | undefined) {
  return useQuery({
    queryKey: keys.contacts.emails(projectId, contactId, cursor),
    placeholderData: keepPreviousData,
    queryFn: () => unwrap(api.GET('/emails', { params: { query: { contactId, limit: 20, cursor } } })),
  });
}

/** One sent email with its lifecycle events (GET /emails/{id}), as a contact's email list opens it. */
export function useEmail(projectId: string, emailId: string) {
  return useQuery({
    queryKey: keys.emails.one(projectId, emailId),
    queryFn: () => unwrap(api.GET('/emails/{id}', { params: { path: { id: emailId } } })),
  });
}

/** How many contacts a filter tree matches (POST /contacts/count); a refused tree is not retried, its 422 names the nodes. */
export function useFilterCount(projectId: string, condition: unknown, { enabled }: { enabled: boolean }) {
  return useQuery({
    queryKey: keys.contacts.count(projectId, JSON.stringify(condition)),
    enabled,
    placeholderData: keepPreviousData,
    retry: false,
    queryFn: () => unwrap(api.POST('/contacts/count', { body: { condition: condition as never } })),
  });
}

export type Job = ResponseOf<'/contacts/bulk/{jobId}', 'get'>;
export type ImportJob = ResponseOf<'/contacts/import/{jobId}', 'get'>;
type Progress = Pick<Job, 'status' | 'total' | 'processed'>;
export const jobDone = (job: Progress | undefined) => !!job && ['COMPLETED', 'FAILED'].includes(job.status);
export const jobPercent = (job: Progress | undefined) => (job?.total ? (100 * job.processed) / job.total : jobDone(job) ? 100 : 0);

const fetchJob = {
  bulk: (jobId: string) => unwrap(api.GET('/contacts/bulk/{jobId}', { params: { path: { jobId } } })),
  export: (jobId: string) => unwrap(api.GET('/contacts/export/{jobId}', { params: { path: { jobId } } })),
  import: (jobId: string) => unwrap(api.GET('/contacts/import/{jobId}', { params: { path: { jobId } } })),
};

/** A contact job's progress (an import, a bulk change, an export), polled every half second until it is done. */
export function useJobProgress<K extends keyof typeof fetchJob>(projectId: string, kind: K, jobId: string | undefined) {
  return useQuery({
    queryKey: keys.contacts.job(projectId, kind, jobId),
    enabled: !!jobId,
    queryFn: () => fetchJob[kind](jobId!) as ReturnType<(typeof fetchJob)[K]>,
    refetchInterval: (q) => (jobDone(q.state.data as Progress | undefined) ? false : 500),
  });
}

type ContactChanges = BodyOf<'/contacts/{id}', 'patch'>;
type Contact = ResponseOf<'/contacts/{id}', 'get'>;

/**
 * PATCH /contacts/{id} with only the keys that change. The page's contact takes the answer; a new
 * address or subscription refreshes the lists, a custom field the field registry (types, coverage).
 */
export function useUpdateContact(projectId: string, contactId: string, then: Then<Contact, ContactChanges> = {}) {
  const qc = useQueryClient();
  return useMutation({
    meta: then.meta,
    mutationFn: (changes: ContactChanges) => unwrap(api.PATCH('/contacts/{id}', { params: { path: { id: contactId } }, body: changes })),
    onSuccess: async (data, changes) => {
      qc.setQueryData(keys.contacts.one(projectId, contactId), data);
      const refreshed = qc.invalidateQueries({ queryKey: 'data' in changes ? keys.contactFields.all(projectId) : keys.contacts.all(projectId) });
      await then.onSuccess?.(data, changes);
      await refreshed;
    },
  });
}

/** DELETE /contacts/{id}; the lists are refreshed before `onSuccess` (the page goes back to one). */
export function useDeleteContact(projectId: string, contactId: string, then: Then<unknown> = {}) {
  const qc = useQueryClient();
  return useMutation({
    meta: then.meta,
    mutationFn: () => unwrap(api.DELETE('/contacts/{id}', { params: { path: { id: contactId } } })),
    onSuccess: async (data) => {
      await qc.invalidateQueries({ queryKey: keys.contacts.all(projectId) });
      await then.onSuccess?.(data, undefined);
    },
  });
}

/**
 * POST /contacts creates *or updates* by address: an "Add contact" for a listed address would overwrite its
 * subscription (re-subscribing someone who left) and fields. The add looks first and fails with this instead.
 */
export class AlreadyAContact extends Error {
  constructor(readonly contactId: string) {
    // Never shown as such: the dialog says it in the person's language (contacts:add.alreadyBody).
    super('Already a contact');
  }
}

type NewContact = { email: string; subscribed: boolean; data: Record<string, unknown> };

/** Adds a contact that is not one yet (see AlreadyAContact), then refreshes the lists and the setup checklist. */
export function useAddContact(projectId: string, then: Then<unknown, NewContact> = {}) {
  const qc = useQueryClient();
  return useMutation({
    meta: then.meta,
    mutationFn: async ({ email, subscribed, data }: NewContact) => {
      if (email) {
        const found = await unwrap(api.GET('/contacts', { params: { query: { search: email, limit: 100, sort: 'email', dir: 'asc' } } }));
        const same = found.data.find((c) => c.email.toLowerCase() === email.toLowerCase());
        if (same) throw new AlreadyAContact(same.id);
      }
      return unwrap(api.POST('/contacts', { body: { email, subscribed, data: Object.keys(data).length ? data : undefined } }));
    },
    onSuccess: async (data, added) => {
      const refreshed = Promise.all([
        qc.invalidateQueries({ queryKey: keys.contacts.all(projectId) }),
        qc.invalidateQueries({ queryKey: keys.setupState(projectId) }),
      ]);
      await then.onSuccess?.(data, added);
      await refreshed;
    },
  });
}

/** The project's saved contact views (GET /contact-views), shared with every member. */
export function useSavedViews(projectId: string) {
  return useQuery({ queryKey: keys.contacts.views(projectId), queryFn: () => unwrap(api.GET('/contact-views')) });
}

type ViewBody = BodyOf<'/contact-views/{id}', 'patch'>;
type View = ResponseOf<'/contact-views', 'post', 201>;

/** POST /contact-views; `onSuccess` runs first (it names the dialog's end), then the list is refreshed. */
export function useCreateView(projectId: string, then: Then<View, BodyOf<'/contact-views', 'post'>> = {}) {
  const qc = useQueryClient();
  return useMutation({
    meta: then.meta,
    mutationFn: (body: BodyOf<'/contact-views', 'post'>) => unwrap(api.POST('/contact-views', { body })),
    onSuccess: async (view, body) => {
      const refreshed = qc.invalidateQueries({ queryKey: keys.contacts.views(projectId) });
      await then.onSuccess?.(view, body);
      await refreshed;
    },
  });
}

/** PATCH /contact-views/{id} with the list as it is now. */
export function useUpdateView(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: ViewBody }) => unwrap(api.PATCH('/contact-views/{id}', { params: { path: { id } }, body })),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.contacts.views(projectId) }),
  });
}

/** DELETE /contact-views/{id}. */
export function useDeleteView(projectId: string, then: Then<unknown, string> = {}) {
  const qc = useQueryClient();
  return useMutation({
    meta: then.meta,
    mutationFn: (id: string) => unwrap(api.DELETE('/contact-views/{id}', { params: { path: { id } } })),
    onSuccess: async (data, id) => {
      await then.onSuccess?.(data, id);
      await qc.invalidateQueries({ queryKey: keys.contacts.views(projectId) });
    },
  });
}

/** GET /contacts/:id/timeline, 25 at a time newest first, of one kind or all; "Load more" takes the next cursor. */
export function useContactTimeline(projectId: string, contactId: string, kind: TimelineKind | 'all') {
  return useInfiniteQuery({
    queryKey: keys.contacts.timeline(projectId, contactId, kind),
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) => timelinePage(contactId, pageParam, kind === 'all' ? undefined : kind),
    getNextPageParam: (last) => (last.hasMore && last.cursor ? last.cursor : undefined),
  });
}

type TimelineKind = ResponseOf<'/contacts/{id}/timeline', 'get'>['data'][number]['kind'];
const timelinePage = (contactId: string, cursor: string | undefined, kind: TimelineKind | undefined) =>
  unwrap(
    api.GET('/contacts/{id}/timeline', {
      params: { path: { id: contactId }, query: { limit: 25, ...(kind ? { kind } : {}), ...(cursor ? { cursor } : {}) } },
    }),
  );
