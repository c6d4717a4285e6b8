import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import { keys } from '../queryKeys';

/** GET /topics. */
export function useTopics(projectId: string) {
  return useQuery({ queryKey: keys.topics.all(projectId), queryFn: () => unwrap(api.GET('/topics')) });
}
