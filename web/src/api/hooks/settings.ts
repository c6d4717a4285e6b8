import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import { keys } from '../queryKeys';

/** GET /settings: the project's sending policy and retention. */
export function useSettings(projectId: string) {
  return useQuery({ queryKey: keys.settings(projectId), queryFn: () => unwrap(api.GET('/settings')) });
}

/** The month's consumption and its caps (GET …/billing-consumption; billing on only). */
export function useBilling(projectId: string) {
  return useQuery({
    queryKey: keys.billing.consumption(projectId),
    queryFn: () => unwrap(api.GET('/users/@me/projects/{id}/billing-consumption', { params: { path: { id: projectId } } })),
  });
}
