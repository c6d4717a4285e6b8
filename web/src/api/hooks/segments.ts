import { keepPreviousData, type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type BodyOf, type ResponseOf } from '../client';
import { keys } from '../queryKeys';
import type { Then } from './then';

type Segment = ResponseOf<'/segments/{id}', 'get'>;

/** GET /segments. `enabled` lets a form wait until a segment is to be picked. */
export function useSegments(projectId: string, options: { enabled?: boolean } = {}) {
  return useQuery({ queryKey: keys.segments.all(projectId), queryFn: () => unwrap(api.GET('/segments')), ...options });
}

/** GET /segments/{id}; waits for an id. */
export function useSegment(projectId: string, segmentId: string | undefined) {
  return useQuery({
    queryKey: keys.segments.one(projectId, segmentId),
    enabled: !!segmentId,
    queryFn: () => unwrap(api.GET('/segments/{id}', { params: { path: { id: segmentId! } } })),
  });
}

type MemberPage = ResponseOf<'/segments/{id}/contacts', 'get'>;

/**
 * One page of a segment's members (GET /segments/{id}/contacts); the previous page stays on screen
 * while the next loads. A page whose previous page is cached is asked for by that page's `cursor`
 * (keyset: as cheap 90 % in as on the first page); a page jumped to by number by `page` (an OFFSET,
 * which grows with the depth: docs/capacity.md).
 */
export function useSegmentMembers(projectId: string, segmentId: string, { page, pageSize }: { page: number; pageSize: number }) {
  const qc = useQueryClient();
  return useQuery({
    queryKey: keys.segments.membersPage(projectId, segmentId, page),
    placeholderData: keepPreviousData,
    queryFn: () => {
      const before = page > 1 ? qc.getQueryData<MemberPage>(keys.segments.membersPage(projectId, segmentId, page - 1)) : undefined;
      const cursor = before?.pageSize === pageSize && before.page === page - 1 ? before.cursor : undefined;
      const query = cursor ? { cursor, pageSize } : { page, pageSize };
      return unwrap(api.GET('/segments/{id}/contacts', { params: { path: { id: segmentId }, query } }));
    },
  });
}

/** A segment's count or members changed: its page, the list's count and the member pages. */
const refreshSegment = (qc: QueryClient, projectId: string, segmentId: string) => [
  qc.invalidateQueries({ queryKey: keys.segments.members(projectId, segmentId) }),
  qc.invalidateQueries({ queryKey: keys.segments.one(projectId, segmentId) }),
  qc.invalidateQueries({ queryKey: keys.segments.all(projectId) }),
];

/** A new segment (POST /segments) or the changed fields of one (PATCH /segments/{id}). */
export type SegmentSave = { create: BodyOf<'/segments', 'post'> } | { id: string; changes: BodyOf<'/segments/{id}', 'patch'> };

/** Saves a segment; the list is refreshed and the saved segment cached before `onSuccess` (a new one is navigated to). */
export function useSaveSegment(projectId: string, then: Then<Segment, SegmentSave> = {}) {
  const qc = useQueryClient();
  return useMutation({
    meta: then.meta,
    mutationFn: (save: SegmentSave) =>
      'create' in save
        ? unwrap(api.POST('/segments', { body: save.create }))
        : unwrap(api.PATCH('/segments/{id}', { params: { path: { id: save.id } }, body: save.changes })),
    onSuccess: async (s, save) => {
      await qc.invalidateQueries({ queryKey: keys.segments.all(projectId) });
      qc.setQueryData(keys.segments.one(projectId, s.id), s);
      await qc.invalidateQueries({ queryKey: keys.segments.members(projectId, s.id) });
      await then.onSuccess?.(s, save);
    },
  });
}

/** POST /segments/{id}/compute: entry and exit events of a tracked segment (200 with the counts, or 202 while it still runs). */
export function useComputeSegment(
  projectId: string,
  segmentId: string,
  then: Then<ResponseOf<'/segments/{id}/compute', 'post'> | ResponseOf<'/segments/{id}/compute', 'post', 202>> = {},
) {
  const qc = useQueryClient();
  return useMutation({
    meta: then.meta,
    mutationFn: () => unwrap(api.POST('/segments/{id}/compute', { params: { path: { id: segmentId } } })),
    // Not awaited: the button is done when the answer is shown; the count and members follow.
    onSuccess: (r) => {
      then.onSuccess?.(r, undefined);
      void refreshSegment(qc, projectId, segmentId);
    },
  });
}

/** POST /segments/{id}/refresh: a recount only. */
export function useRefreshSegment(projectId: string, segmentId: string, then: Then<ResponseOf<'/segments/{id}/refresh', 'post'>> = {}) {
  const qc = useQueryClient();
  return useMutation({
    meta: then.meta,
    mutationFn: () => unwrap(api.POST('/segments/{id}/refresh', { params: { path: { id: segmentId } } })),
    // Not awaited, as Compute.
    onSuccess: (r) => {
      then.onSuccess?.(r, undefined);
      void refreshSegment(qc, projectId, segmentId);
    },
  });
}

/** DELETE /segments/{id}; the list is refreshed before `onSuccess` (the page goes back to it). */
export function useDeleteSegment(projectId: string, segmentId: string, then: Then<unknown> = {}) {
  const qc = useQueryClient();
  return useMutation({
    meta: then.meta,
    mutationFn: () => unwrap(api.DELETE('/segments/{id}', { params: { path: { id: segmentId } } })),
    onSuccess: async (data) => {
      await qc.invalidateQueries({ queryKey: keys.segments.all(projectId) });
      await then.onSuccess?.(data, undefined);
    },
  });
}

/** POST /segments/{id}/members (a STATIC segment): the addresses, creating the missing contacts if asked. */
export function useAddSegmentMembers(
  projectId: string,
  segmentId: string,
  then: Then<ResponseOf<'/segments/{id}/members', 'post'>, BodyOf<'/segments/{id}/members', 'post'>> = {},
) {
  const qc = useQueryClient();
  return useMutation({
    meta: then.meta,
    mutationFn: (body: BodyOf<'/segments/{id}/members', 'post'>) => unwrap(api.POST('/segments/{id}/members', { params: { path: { id: segmentId } }, body })),
    onSuccess: async (r, body) => {
      await then.onSuccess?.(r, body);
      for (const refreshed of refreshSegment(qc, projectId, segmentId)) await refreshed;
    },
  });
}

/** DELETE /segments/{id}/members (a STATIC segment). */
export function useRemoveSegmentMembers(
  projectId: string,
  segmentId: string,
  then: Then<ResponseOf<'/segments/{id}/members', 'delete'>, BodyOf<'/segments/{id}/members', 'delete'>> = {},
) {
  const qc = useQueryClient();
  return useMutation({
    meta: then.meta,
    mutationFn: (body: BodyOf<'/segments/{id}/members', 'delete'>) =>
      unwrap(api.DELETE('/segments/{id}/members', { params: { path: { id: segmentId } }, body })),
    onSuccess: async (r, body) => {
      await then.onSuccess?.(r, body);
      for (const refreshed of refreshSegment(qc, projectId, segmentId)) await refreshed;
    },
  });
}
