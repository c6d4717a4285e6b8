import { bucketCount, INTERVAL_MS, Interval } from '../db/analytics';

/** The windows time series run over: GET /analytics/timeseries and GET /campaigns/:id/timeseries share these limits. */

const TIMESERIES_LIMITS = { maxWindowDays: 90, maxBuckets: 2000 } as const;

/** Why a series window is refused (the analytics and campaign series share these limits), or null. */
export function seriesWindowProblem(from: Date, to: Date, interval: Interval): string | null {
  return from >= to
    ? 'from must be before to'
    : to.getTime() - from.getTime() > TIMESERIES_LIMITS.maxWindowDays * INTERVAL_MS.day
      ? `the window may span at most ${TIMESERIES_LIMITS.maxWindowDays} days`
      : bucketCount(from, to, interval) > TIMESERIES_LIMITS.maxBuckets
        ? `the window may hold at most ${TIMESERIES_LIMITS.maxBuckets} buckets; use interval=day or a shorter window`
        : null;
}

/** A campaign's series with no window given: from its start, at most the longest window. */
export function campaignSeriesWindow(start: Date, now = new Date()): { from: Date; to: Date; interval: Interval } {
  const to = new Date(Math.min(now.getTime(), start.getTime() + TIMESERIES_LIMITS.maxWindowDays * INTERVAL_MS.day));
  // Hours while that fits a chart (three days), days after.
  return { from: start, to, interval: to.getTime() - start.getTime() <= 3 * INTERVAL_MS.day ? 'hour' : 'day' };
}
