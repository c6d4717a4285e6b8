import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import { keys } from '../queryKeys';

/** The project's setup checklist (GET /projects/{id}/setup-state). */
export function useSetupState(projectId: string) {
  return useQuery({
    queryKey: keys.setupState(projectId),
    queryFn: () => unwrap(api.GET('/projects/{id}/setup-state', { params: { path: { id: projectId } } })),
  });
}
