import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, unwrap, type User } from './client';
import { keys } from './queryKeys';

/** The signed-in user, or null (401). */
export function useMe() {
  return useQuery({
    queryKey: keys.me(),
    queryFn: async (): Promise<User | null> => {
      try {
        return await unwrap(api.GET('/users/@me'));
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) return null;
        throw err;
      }
    },
    staleTime: 60_000,
  });
}

export function useProjects(enabled = true) {
  return useQuery({
    queryKey: keys.projects.all(),
    queryFn: () => unwrap(api.GET('/users/@me/projects')),
    enabled,
  });
}

export function useAppConfig() {
  return useQuery({
    queryKey: keys.config(),
    queryFn: () => unwrap(api.GET('/config')),
    staleTime: Infinity,
  });
}

export function useSignedOut() {
  const qc = useQueryClient();
  return async () => {
    // POST: the logout the pages use (GET /auth/logout stays for the spec's clients).
    await unwrap(api.POST('/auth/logout'));
    qc.clear();
  };
}
