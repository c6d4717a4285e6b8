import { route } from '../route';
import { heavyReader } from '../../services/reads';
import {
  CampaignStatsOut,
  CampaignStatsQuery,
  metricType,
  TimeseriesOut,
  TimeseriesQuery,
  TopCampaignsOut,
  TopCampaignsQuery,
  TopEventsOut,
  TopEventsQuery,
  windowOf,
} from '../schemas/analytics';
import { campaignTotals, timeseries, topCampaigns } from '../../db/analytics';
import { countEventsByName } from '../../db/eventQueries';
import { TYPED_EVENT_NAMES } from '../../db/activity';

export default [
  route({
    method: 'get',
    path: '/analytics/timeseries',
    auth: 'secret',
    tag: 'analytics',
    summary: 'Counts of one metric per UTC hour or day over [from, to) (at most 90 days and 2000 buckets)',
    query: TimeseriesQuery,
    responses: { 200: { description: 'one point per bucket, empty buckets included', schema: TimeseriesOut } },
    async handler(ctx, { query, project }) {
      const points = await timeseries(await heavyReader(ctx.deps, project.id), {
        projectId: project.id,
        type: metricType(query.metric),
        interval: query.interval,
        from: query.from,
        to: query.to,
      });
      return {
        metric: query.metric,
        interval: query.interval,
        from: query.from.toISOString(),
        to: query.to.toISOString(),
        total: points.reduce((sum, p) => sum + p.count, 0),
        points: points.map((p) => ({ t: new Date(p.t).toISOString(), count: p.count })),
      };
    },
  }),
  route({
    method: 'get',
    path: '/analytics/top-campaigns',
    auth: 'secret',
    tag: 'analytics',
    summary: 'Campaigns that started sending in the last `days` days, ranked by sends, opens, clicks or rates',
    query: TopCampaignsQuery,
    responses: { 200: { description: 'campaign funnels', schema: TopCampaignsOut } },
    async handler(ctx, { query, project }) {
      const { from, to } = windowOf(query.days);
      const rows = await topCampaigns(await heavyReader(ctx.deps, project.id), { projectId: project.id, from, to, sort: query.sort, limit: query.limit });
      return { from: from.toISOString(), to: to.toISOString(), data: rows.map((c) => ({ ...c, startedAt: new Date(c.startedAt).toISOString() })) };
    },
  }),
  route({
    method: 'get',
    path: '/analytics/campaign-stats',
    auth: 'secret',
    tag: 'analytics',
    summary: 'Totals over the campaigns that started sending in the last `days` days, and campaigns by status',
    query: CampaignStatsQuery,
    responses: { 200: { description: 'totals and rates', schema: CampaignStatsOut } },
    async handler(ctx, { query, project }) {
      const { from, to } = windowOf(query.days);
      return { from: from.toISOString(), to: to.toISOString(), ...(await campaignTotals(await heavyReader(ctx.deps, project.id), project.id, from, to)) };
    },
  }),
  route({
    method: 'get',
    path: '/analytics/top-events',
    auth: 'secret',
    tag: 'analytics',
    summary: 'Most frequent events of the last `days` days, leaving out the email lifecycle and subscription changes',
    query: TopEventsQuery,
    responses: { 200: { description: 'names, most frequent first', schema: TopEventsOut } },
    async handler(ctx, { query, project }) {
      const { from, to } = windowOf(query.days);
      const data = await countEventsByName(await heavyReader(ctx.deps, project.id), {
        projectId: project.id,
        from,
        to,
        limit: query.limit,
        excludeNames: TYPED_EVENT_NAMES,
        untilNow: true,
      });
      return { from: from.toISOString(), to: to.toISOString(), data };
    },
  }),
];
