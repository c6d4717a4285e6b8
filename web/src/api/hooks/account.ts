import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import { keys } from '../queryKeys';

/** GET /users/@me/sessions: the signed-in user's sessions that can still be used. */
export function useSessions() {
  return useQuery({ queryKey: keys.sessions(), queryFn: () => unwrap(api.GET('/users/@me/sessions')) });
}

/** GET /auth/invites/{token}: the offer an invitation link makes; waits for a token. */
export function useInvite(token: string) {
  return useQuery({
    queryKey: keys.invite(token),
    queryFn: () => unwrap(api.GET('/auth/invites/{token}', { params: { path: { token } } })),
    enabled: !!token,
  });
}
