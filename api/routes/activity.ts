import { route } from '../route';
import { heavyReader } from '../../services/reads';
import { badRequest } from '../errors';
import {
  ActivityPageOut,
  ActivityQuery,
  ActivityStatsOut,
  ActivityStatsQuery,
  ActivityTypesOut,
  RecentCountOut,
  RecentCountQuery,
  UpcomingOut,
  UpcomingQuery,
} from '../schemas/activity';
import { windowOf } from '../schemas/analytics';
import { ACTIVITY_TYPE_DESCRIPTIONS, ACTIVITY_TYPES, ActivityType, activityCounts, activityFeed, upcoming } from '../../db/activity';
import { parseTimeCursor } from '../../db/eventQueries';
import { iso } from '../../lib/time';

export default [
  route({
    method: 'get',
    path: '/activity',
    auth: 'secret',
    tag: 'activity',
    summary: 'One newest-first feed of email lifecycle (sent … complained, failed), subscription changes and events (cursor pagination)',
    query: ActivityQuery,
    responses: { 200: { description: 'a page of activity', schema: ActivityPageOut } },
    async handler(ctx, { query, project }) {
      const after = query.cursor === undefined ? undefined : parseTimeCursor(query.cursor);
      if (after === null) throw badRequest('Invalid cursor: pass the cursor of a previous page');
      const page = await activityFeed(await heavyReader(ctx.deps, project.id), {
        projectId: project.id,
        limit: query.limit,
        after,
        types: query.type,
        from: query.from,
        to: query.to,
      });
      return { data: page.rows.map((r) => ({ ...r, occurredAt: iso(r.occurredAt)! })), cursor: page.cursor, hasMore: page.hasMore };
    },
  }),
  route({
    method: 'get',
    path: '/activity/stats',
    auth: 'secret',
    tag: 'activity',
    summary: 'Activity per type over the last `days` days',
    query: ActivityStatsQuery,
    responses: { 200: { description: 'counts per type', schema: ActivityStatsOut } },
    async handler(ctx, { query, project }) {
      const { from, to } = windowOf(query.days);
      const counts = await activityCounts(await heavyReader(ctx.deps, project.id), project.id, from, to);
      return { from: iso(from)!, to: iso(to)!, total: Object.values(counts).reduce((a, b) => a + b, 0), counts };
    },
  }),
  route({
    method: 'get',
    path: '/activity/recent-count',
    auth: 'secret',
    tag: 'activity',
    summary: 'How many activity items (optionally of some types) happened in the last `minutes` minutes',
    query: RecentCountQuery,
    responses: { 200: { description: 'the count', schema: RecentCountOut } },
    async handler(ctx, { query, project }) {
      const to = new Date();
      const since = new Date(to.getTime() - query.minutes * 60_000);
      const counts = await activityCounts(await heavyReader(ctx.deps, project.id), project.id, since, to);
      const types: readonly ActivityType[] = query.type ?? ACTIVITY_TYPES;
      const count = types.reduce((sum, t) => sum + counts[t], 0);
      return { minutes: query.minutes, since: iso(since)!, count };
    },
  }),
  route({
    method: 'get',
    path: '/activity/types',
    auth: 'secret',
    tag: 'activity',
    summary: 'The activity types the feed, its filters and its counts use',
    responses: { 200: { description: 'types', schema: ActivityTypesOut } },
    handler(ctx) {
      return { types: ACTIVITY_TYPES.map((type) => ({ type, description: ACTIVITY_TYPE_DESCRIPTIONS[type] })) };
    },
  }),
  route({
    method: 'get',
    path: '/activity/upcoming',
    auth: 'secret',
    tag: 'activity',
    summary: 'Scheduled campaigns and active (running or waiting) workflow executions',
    query: UpcomingQuery,
    responses: { 200: { description: 'what is coming', schema: UpcomingOut } },
    async handler(ctx, { query, project }) {
      const u = await upcoming(ctx.deps.knex, project.id, query.limit);
      return {
        campaigns: u.campaigns.map((c) => ({ ...c, scheduledFor: iso(c.scheduledFor) })),
        executions: u.executions.map((x) => ({ ...x, waitingSince: iso(x.waitingSince), wakeAt: iso(x.wakeAt) })),
      };
    },
  }),
];
