import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import { keys } from '../queryKeys';

/** The project's sending domains (GET /domains/project/{projectId}). */
export function useDomains(projectId: string) {
  return useQuery({
    queryKey: keys.domains.all(projectId),
    queryFn: () => unwrap(api.GET('/domains/project/{projectId}', { params: { path: { projectId } } })),
  });
}
