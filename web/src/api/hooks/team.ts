import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import { keys } from '../queryKeys';

/** GET /projects/{id}/members: the members and the pending invites. */
export function useTeam(projectId: string) {
  return useQuery({ queryKey: keys.team.all(projectId), queryFn: () => unwrap(api.GET('/projects/{id}/members', { params: { path: { id: projectId } } })) });
}
