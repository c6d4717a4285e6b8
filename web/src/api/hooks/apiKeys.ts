import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import { keys } from '../queryKeys';

/** GET /api-keys: the project's named, scoped keys (never their secrets). */
export function useApiKeys(projectId: string) {
  return useQuery({ queryKey: keys.apiKeys.all(projectId), queryFn: () => unwrap(api.GET('/api-keys')) });
}
