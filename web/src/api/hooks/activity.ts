import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import { keys } from '../queryKeys';

/** One page of the project's newest-first feed (GET /activity), of the `types` chosen (none: all). */
export function useActivityFeed(projectId: string, types: string[], cursor: string | undefined) {
  return useQuery({
    queryKey: keys.activity(projectId, types.join(','), cursor),
    placeholderData: keepPreviousData,
    // Only the first page moves: older pages stay put.
    refetchInterval: cursor ? false : 5000,
    queryFn: () => unwrap(api.GET('/activity', { params: { query: { limit: 50, cursor, type: types.length ? types.join(',') : undefined } } })),
  });
}
