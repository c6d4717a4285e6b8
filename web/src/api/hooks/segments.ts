import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import { keys } from '../queryKeys';

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
