import { z } from 'zod';
import { Timestamp } from './common';
import { CAMPAIGN_SORTS, FUNNEL_STAGES, INTERVAL_MS, INTERVALS, Interval } from '../../db/analytics';
import { seriesWindowProblem } from '../../services/seriesWindows';
import type { ActivityType } from '../../db/activity';

// ───────────────────────────── time windows (shared by events, activity, analytics) ─────────────────────────────

/** An ISO 8601 instant with an offset (`2024-05-01T10:00:00Z`) or a date (`2024-05-01`, UTC midnight). */
export const Instant = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()])
  .transform((s) => new Date(s.length === 10 ? `${s}T00:00:00Z` : s))
  .describe('ISO 8601 instant with offset, or a YYYY-MM-DD date (UTC midnight)');

const MAX_WINDOW_DAYS = 365;

/** `days`: the window [now - days, now) aggregations run over. */
export const days = (fallback: number, max = MAX_WINDOW_DAYS) =>
  z.coerce.number().int().min(1).max(max).default(fallback).describe(`window in days ending now (1 to ${max}, default ${fallback})`);

/** `limit` for top-N lists and pages: larger values are clamped, like GET /contacts. */
export const limit = (fallback: number, max: number) =>
  z.coerce
    .number()
    .int()
    .min(1)
    .default(fallback)
    .transform((n) => Math.min(n, max))
    .describe(`1 to ${max} (larger values are clamped), default ${fallback}`);

export const windowOf = (d: number, now = new Date()) => ({ from: new Date(now.getTime() - d * 86_400_000), to: now });

// ───────────────────────────── timeseries ─────────────────────────────

const TIMESERIES_METRICS = [
  'sent',
  'delivered',
  'opened',
  'clicked',
  'bounced',
  'complained',
  'suppressed',
  'failed',
  'subscribed',
  'unsubscribed',
  'events',
] as const;
export type TimeseriesMetric = (typeof TIMESERIES_METRICS)[number];
/** `events` is the activity type `event`: everything but the email lifecycle and subscription changes. */
export const metricType = (m: TimeseriesMetric): ActivityType => (m === 'events' ? 'event' : m);

const DEFAULT_SPAN: Record<Interval, number> = { hour: 24 * INTERVAL_MS.hour, day: 30 * INTERVAL_MS.day };

export const TimeseriesQuery = z
  .object({
    metric: z.enum(TIMESERIES_METRICS),
    interval: z.enum(INTERVALS).default('day'),
    from: Instant.optional().describe('inclusive; default: `to` minus 24 hours (hour) or 30 days (day)'),
    to: Instant.optional().describe('exclusive; default: now'),
  })
  .transform((q, ctx) => {
    const to = q.to ?? new Date();
    const from = q.from ?? new Date(to.getTime() - DEFAULT_SPAN[q.interval]);
    const problem = seriesWindowProblem(from, to, q.interval);
    if (problem) {
      ctx.addIssue({ code: 'custom', path: ['from'], message: problem });
      return z.NEVER;
    }
    return { metric: q.metric, interval: q.interval, from, to };
  });

export const TimeseriesOut = z.object({
  metric: z.enum(TIMESERIES_METRICS),
  interval: z.enum(INTERVALS),
  from: Timestamp,
  to: Timestamp,
  total: z.number().int(),
  points: z.array(z.object({ t: Timestamp.describe('bucket start (UTC)'), count: z.number().int() })),
});

// ───────────────────────────── campaigns and events ─────────────────────────────

const funnelShape = {
  ...Object.fromEntries(FUNNEL_STAGES.map((s) => [s, z.number().int()])),
  openRate: z.number().describe('opened / sent'),
  clickRate: z.number().describe('clicked / sent'),
  bounceRate: z.number().describe('bounced / sent'),
} as Record<string, z.ZodType>;

export const TopCampaignsQuery = z.object({
  days: days(30),
  sort: z.enum(CAMPAIGN_SORTS).default('opened'),
  limit: limit(10, 50),
});

export const TopCampaignsOut = z.object({
  from: Timestamp,
  to: Timestamp,
  data: z.array(z.object({ id: z.string(), name: z.string(), status: z.string(), totalRecipients: z.number().int(), startedAt: Timestamp, ...funnelShape })),
});

export const CampaignStatsQuery = z.object({ days: days(30) });

export const CampaignStatsOut = z.object({
  from: Timestamp,
  to: Timestamp,
  campaigns: z.number().int().describe('campaigns that started sending in the window'),
  totalRecipients: z.number().int(),
  ...funnelShape,
  byStatus: z.record(z.string(), z.number().int()).describe('all campaigns of the project by status'),
});

export const TopEventsQuery = z.object({ days: days(30), limit: limit(10, 100) });

export const TopEventsOut = z.object({
  from: Timestamp,
  to: Timestamp,
  data: z.array(z.object({ name: z.string(), count: z.number().int(), uniqueContacts: z.number().int() })),
});
