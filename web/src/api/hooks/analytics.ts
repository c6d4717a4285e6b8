import { useQueries, useQuery } from '@tanstack/react-query';
import type { paths } from '../schema';
import { api, unwrap } from '../client';
import { keys } from '../queryKeys';

export type Metric = NonNullable<paths['/analytics/timeseries']['get']['parameters']['query']>['metric'];

/**
 * GET /analytics/timeseries for each metric (one call each, per UTC day) over the last `days` (a
 * string, as the window picker holds it), in the order given.
 */
export function useAnalyticsSeries(projectId: string, metrics: readonly Metric[], days: string) {
  return useQueries({
    queries: metrics.map((metric) => ({
      queryKey: keys.analytics.series(projectId, metric, days),
      queryFn: () => {
        const to = new Date();
        const from = new Date(to.getTime() - Number(days) * 86_400_000);
        return unwrap(api.GET('/analytics/timeseries', { params: { query: { metric, interval: 'day', from: from.toISOString(), to: to.toISOString() } } }));
      },
    })),
  });
}

/** The ten campaigns that sent most over the last `days` (GET /analytics/top-campaigns). */
export function useTopCampaigns(projectId: string, days: string) {
  return useQuery({
    queryKey: keys.analytics.topCampaigns(projectId, days),
    queryFn: () => unwrap(api.GET('/analytics/top-campaigns', { params: { query: { days: Number(days), sort: 'sent', limit: 10 } } })),
  });
}

/** The ten most tracked event names over the last `days` (GET /analytics/top-events). */
export function useTopEvents(projectId: string, days: string) {
  return useQuery({
    queryKey: keys.analytics.topEvents(projectId, days),
    queryFn: () => unwrap(api.GET('/analytics/top-events', { params: { query: { days: Number(days), limit: 10 } } })),
  });
}
