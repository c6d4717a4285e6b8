import { useQuery } from '@tanstack/react-query';
import { api, ApiError, type ResponseOf, unwrap } from '../client';
import { keys } from '../queryKeys';

/** The project's sending domains (GET /domains/project/{projectId}). */
export function useDomains(projectId: string) {
  return useQuery({
    queryKey: keys.domains.all(projectId),
    queryFn: () => unwrap(api.GET('/domains/project/{projectId}', { params: { path: { projectId } } })),
  });
}

/** GET /tracking-domain, or null when none is set (the API's 404: the screen shows the form, not an error). */
export function useTrackingDomain(projectId: string) {
  return useQuery({
    queryKey: keys.domains.tracking(projectId),
    queryFn: async (): Promise<ResponseOf<'/tracking-domain', 'get'> | null> => {
      try {
        return await unwrap(api.GET('/tracking-domain'));
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return null;
        throw err;
      }
    },
  });
}
