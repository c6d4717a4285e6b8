import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, type ResponseOf, unwrap } from '../client';
import { keys } from '../queryKeys';

type Reason = ResponseOf<'/suppressions', 'get'>['data'][number]['reason'];

/** One page of GET /suppressions by cursor, searched by address; `reason` 'all' is no filter. The previous page stays on screen while the next loads. */
export function useSuppressions(
  projectId: string,
  { search, reason, cursor, limit }: { search: string; reason: string; cursor: string | undefined; limit: number },
) {
  return useQuery({
    queryKey: keys.suppressions.list(projectId, search, reason, cursor),
    placeholderData: keepPreviousData,
    queryFn: () =>
      unwrap(
        api.GET('/suppressions', {
          params: { query: { limit, cursor, search: search || undefined, reason: reason === 'all' ? undefined : (reason as Reason) } },
        }),
      ),
  });
}
