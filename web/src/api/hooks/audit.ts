import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, type ResponseOf, unwrap } from '../client';
import { keys } from '../queryKeys';

type Action = ResponseOf<'/projects/{id}/audit', 'get'>['data'][number]['action'];

/** GET /projects/:id/audit, one page, all actions or one; the previous page stays while the next loads. */
export function useAuditLog(
  projectId: string,
  { action, page, pageSize, enabled }: { action: Action | 'all'; page: number; pageSize: number; enabled: boolean },
) {
  return useQuery({
    queryKey: keys.audit(projectId, action, page),
    queryFn: () =>
      unwrap(
        api.GET('/projects/{id}/audit', {
          params: { path: { id: projectId }, query: { page, pageSize, action: action === 'all' ? undefined : action } },
        }),
      ),
    enabled,
    placeholderData: keepPreviousData,
  });
}
