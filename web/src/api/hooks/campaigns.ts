import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import { keys } from '../queryKeys';
import { ACTIVE, type CampaignStatus } from '../campaigns';

/** One page of GET /campaigns, newest first; `status` 'all' is no filter. Refreshed every 3 s while a listed campaign is sending. */
export function useCampaigns(projectId: string, { search, status, page, pageSize }: { search: string; status: string; page: number; pageSize: number }) {
  return useQuery({
    queryKey: keys.campaigns.list(projectId, search, status, page),
    placeholderData: keepPreviousData,
    // A sending campaign's progress moves: refresh while one is listed.
    refetchInterval: (q) => (q.state.data?.data.some((c) => ACTIVE.includes(c.status)) ? 3000 : false),
    queryFn: () =>
      unwrap(
        api.GET('/campaigns', {
          params: {
            query: {
              page,
              pageSize,
              search: search || undefined,
              status: status === 'all' ? undefined : (status as CampaignStatus),
              sort: 'createdAt',
              dir: 'desc',
            },
          },
        }),
      ),
  });
}

/** GET /campaigns/{id}, refreshed every 2 s while it is scheduled, sending or paused; waits for an id. */
export function useCampaign(projectId: string, campaignId: string | undefined) {
  return useQuery({
    queryKey: keys.campaigns.one(projectId, campaignId),
    enabled: !!campaignId,
    refetchInterval: (q) => (q.state.data && ACTIVE.includes(q.state.data.status) ? 2000 : false),
    queryFn: () => unwrap(api.GET('/campaigns/{id}', { params: { path: { id: campaignId! } } })),
  });
}
