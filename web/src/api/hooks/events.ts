import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import { keys } from '../queryKeys';

/** GET /events/names: the event names seen, for filters and workflow triggers. */
export function useEventNames(projectId: string) {
  return useQuery({ queryKey: keys.events.names(projectId), queryFn: () => unwrap(api.GET('/events/names')) });
}
