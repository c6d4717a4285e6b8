import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import { keys } from '../queryKeys';

/**
 * GET /emails/{id}/content: one sent email as its recipient got it (without the open pixel, so reading
 * it is not an open); waits for an id.
 */
export function useEmailContent(projectId: string, emailId: string | null) {
  return useQuery({
    queryKey: keys.emails.content(projectId, emailId),
    enabled: !!emailId,
    queryFn: () => unwrap(api.GET('/emails/{id}/content', { params: { path: { id: emailId! } } })),
  });
}
