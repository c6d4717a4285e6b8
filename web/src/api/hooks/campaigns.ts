import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api, type ResponseOf, unwrap } from '../client';
import { keys } from '../queryKeys';
import { ACTIVE, type Campaign, type CampaignStatus, reportPollMs } from '../campaigns';
import { previewEmail } from '../emailEditor';

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

/** GET /campaigns/{id}/stats, refreshed on the report's clock (reportPollMs: fast while sending, then for a week after). */
export function useCampaignStats(projectId: string, campaign: Pick<Campaign, 'id' | 'status' | 'sentAt'>) {
  return useQuery({
    queryKey: keys.campaigns.stats(projectId, campaign.id),
    refetchInterval: reportPollMs(campaign),
    queryFn: () => unwrap(api.GET('/campaigns/{id}/stats', { params: { path: { id: campaign.id } } })),
  });
}

/**
 * GET /campaigns/{id}/timeseries, redrawn when the counters of `stats` move (the stats poll), not on a
 * clock of its own; waits for the first stats, and keeps the last chart while the next loads.
 */
export function useCampaignSeries(projectId: string, campaignId: string, stats: { sent: number; opened: number; clicked: number } | undefined) {
  const moved = stats ? `${stats.sent}/${stats.opened}/${stats.clicked}` : '';
  return useQuery({
    queryKey: keys.campaigns.series(projectId, campaignId, moved),
    enabled: !!stats,
    placeholderData: keepPreviousData,
    queryFn: () => unwrap(api.GET('/campaigns/{id}/timeseries', { params: { path: { id: campaignId } } })),
  });
}

/** GET /campaigns/{id}/links (the click map's counts), on the report's clock but never faster than every 5 s. */
export function useCampaignLinks(projectId: string, campaign: Pick<Campaign, 'id' | 'status' | 'sentAt'>) {
  const poll = reportPollMs(campaign);
  return useQuery({
    queryKey: keys.campaigns.links(projectId, campaign.id),
    refetchInterval: poll && Math.max(poll, 5000),
    queryFn: () => unwrap(api.GET('/campaigns/{id}/links', { params: { path: { id: campaign.id } } })),
  });
}

/** The JSON page of GET /campaigns/{id}/recipients (the same route also answers CSV, downloaded apart). */
export type RecipientPage = ResponseOf<'/campaigns/{id}/recipients', 'get'>;
export type RecipientStatus = 'delivered' | 'opened' | 'clicked' | 'bounced' | 'complained' | 'unsubscribed';

/** The recipients of `filter` ('all' or one status), 50 a page, "Load more" fetching the next cursor. */
export function useCampaignRecipients(projectId: string, campaign: Pick<Campaign, 'id' | 'status' | 'sentAt'>, filter: RecipientStatus | 'all') {
  const status = filter === 'all' ? undefined : filter;
  return useInfiniteQuery({
    queryKey: keys.campaigns.recipients(projectId, campaign.id, filter),
    initialPageParam: undefined as string | undefined,
    // Only the first page refreshes on its own: pages the person loaded stay as they read them.
    refetchInterval: reportPollMs(campaign),
    queryFn: async ({ pageParam }) =>
      (await unwrap(
        api.GET('/campaigns/{id}/recipients', {
          params: {
            path: { id: campaign.id },
            query: { limit: 50, format: 'json', ...(status ? { status } : {}), ...(pageParam ? { cursor: pageParam } : {}) },
          },
        }),
      )) as RecipientPage,
    getNextPageParam: (last) => (last.hasMore && last.cursor ? last.cursor : undefined),
  });
}

/**
 * GET /campaigns/{id}/runs of an RSS campaign: every 2 s until `fastUntil` (after "Send now"), then
 * every 30 s, and not at all once it is cancelled.
 */
export function useRssRuns(projectId: string, campaign: Pick<Campaign, 'id' | 'status'>, fastUntil: number) {
  return useQuery({
    queryKey: keys.campaigns.runs(projectId, campaign.id),
    refetchInterval: () => (Date.now() < fastUntil ? 2000 : campaign.status === 'CANCELLED' ? false : 30_000),
    queryFn: () => unwrap(api.GET('/campaigns/{id}/runs', { params: { path: { id: campaign.id } } })),
  });
}

/** The campaign's email rendered by the server without a contact (POST /templates/preview), for the click map; once per saved version. */
export function useClickMapPreview(projectId: string, campaign: Pick<Campaign, 'id' | 'updatedAt' | 'subject' | 'document' | 'body' | 'text'>) {
  return useQuery({
    queryKey: keys.campaigns.clickMap(projectId, campaign.id, campaign.updatedAt),
    retry: false,
    queryFn: () =>
      previewEmail(
        campaign.document
          ? { subject: campaign.subject, editor: 'blocks', document: campaign.document, text: campaign.text, data: {} }
          : { subject: campaign.subject, editor: 'html', body: campaign.body, text: campaign.text, data: {} },
      ),
  });
}
