import type { Knex } from 'knex';
import { sendRates } from '../lib/math';
import { ActivityType, whereEventTypes } from './activity';
import { EDGE_SQL, edgeBindings, hourSplit } from './eventRollups';

/**
 * Aggregations for GET /analytics/…: all in SQL, all scoped to one project and bounded by a time
 * window the caller passes (the routes cap its length).
 */

// ───────────────────────────── time series ─────────────────────────────

export const INTERVALS = ['hour', 'day'] as const;
export type Interval = (typeof INTERVALS)[number];
export const INTERVAL_MS: Record<Interval, number> = { hour: 3_600_000, day: 86_400_000 };

/** Buckets [from, to) is cut into: UTC hours or days, the first and last possibly partial. */
export const bucketCount = (from: Date, to: Date, interval: Interval) =>
  Math.floor((to.getTime() - 1) / INTERVAL_MS[interval]) - Math.floor(from.getTime() / INTERVAL_MS[interval]) + 1;

export interface TimeseriesInput {
  projectId: string;
  /** What is counted: activity items of this type (see db/activity). */
  type: ActivityType;
  interval: Interval;
  from: Date;
  to: Date;
}

/**
 * Counts per UTC bucket, empty buckets included (generate_series), oldest first. Only items in
 * [from, to) count, so the first and last bucket may cover less than a whole interval.
 */
export async function timeseries(db: Knex, input: TimeseriesInput): Promise<Array<{ t: Date; count: number }>> {
  // `unit` comes from INTERVALS, never from the request text.
  const unit = INTERVALS.find((i) => i === input.interval)!;
  const bucket = (column: string) => db.raw(`date_trunc('${unit}', ${column} AT TIME ZONE 'UTC') AS t`);
  let counts: { sql: string; bindings: readonly Knex.Value[] };
  if (input.type === 'failed') {
    counts = db({ m: 'emails' })
      .where({ 'm.project_id': input.projectId, 'm.status': 'FAILED' })
      .andWhere('m.updated_at', '>=', input.from)
      .andWhere('m.updated_at', '<', input.to)
      .select(bucket('m.updated_at'), db.raw('count(*)::bigint AS n'))
      .groupByRaw('1')
      .toSQL();
  } else {
    // Events: whole UTC hours from the hourly rollup (migration 059), the partial first and last hour from the log.
    const split = hourSplit(input.from, input.to);
    const whole = whereEventTypes(db({ e: 'event_hourly_counts' }).where('e.project_id', input.projectId), [input.type])
      .andWhere('e.hour', '>=', split.wholeFrom)
      .andWhere('e.hour', '<', split.wholeTo)
      .select(bucket('e.hour'), db.raw('sum(e.count)::bigint AS n'))
      .groupByRaw('1');
    const edges = whereEventTypes(db({ e: 'events' }).where('e.project_id', input.projectId), [input.type])
      .whereRaw(EDGE_SQL, edgeBindings(split))
      .select(bucket('e.created_at'), db.raw('count(*)::bigint AS n'))
      .groupByRaw('1');
    const [w, e] = [whole.toSQL(), edges.toSQL()];
    counts = { sql: `SELECT x.t, sum(x.n) AS n FROM ((${w.sql}) UNION ALL (${e.sql})) x GROUP BY x.t`, bindings: [...w.bindings, ...e.bindings] };
  }
  const { rows } = await db.raw(
    `WITH counts AS (${counts.sql})
     SELECT b.t AT TIME ZONE 'UTC' AS t, coalesce(c.n, 0)::int AS count
       FROM generate_series(date_trunc('${unit}', ?::timestamptz AT TIME ZONE 'UTC'),
                            date_trunc('${unit}', (?::timestamptz - interval '1 microsecond') AT TIME ZONE 'UTC'),
                            interval '1 ${unit}') AS b(t)
       LEFT JOIN counts c ON c.t = b.t
      ORDER BY b.t`,
    [...counts.bindings, input.from, input.to],
  );
  return rows;
}

export const CAMPAIGN_SERIES = ['sent', 'opened', 'clicked'] as const;
export type CampaignSeriesPoint = { t: Date } & Record<(typeof CAMPAIGN_SERIES)[number], number>;

/**
 * One campaign's emails per UTC bucket of [from, to): handed over (`sent_at`), first opened and first
 * clicked by a person (`opened_at`, `clicked_at`: set once per email, as the campaign's counters move),
 * empty buckets included, oldest first. Test sends carry no campaign id and are not counted.
 */
export async function campaignTimeseries(
  db: Knex,
  input: { projectId: string; campaignId: string; interval: Interval; from: Date; to: Date },
): Promise<CampaignSeriesPoint[]> {
  const unit = INTERVALS.find((i) => i === input.interval)!;
  // Column names come from CAMPAIGN_SERIES, never from the request.
  const milestones = CAMPAIGN_SERIES.map((m) => `SELECT '${m}' AS kind, ${m}_at AS at FROM mine WHERE ${m}_at >= :from AND ${m}_at < :to`).join(' UNION ALL ');
  const sums = CAMPAIGN_SERIES.map((m) => `coalesce(sum(c.n) FILTER (WHERE c.kind = '${m}'), 0)::int AS ${m}`).join(', ');
  const { rows } = await db.raw(
    `WITH mine AS (SELECT sent_at, opened_at, clicked_at FROM emails WHERE project_id = :projectId AND campaign_id = :campaignId),
          counts AS (SELECT date_trunc('${unit}', x.at AT TIME ZONE 'UTC') AS t, x.kind, count(*) AS n FROM (${milestones}) x GROUP BY 1, 2)
     SELECT b.t AT TIME ZONE 'UTC' AS t, ${sums}
       FROM generate_series(date_trunc('${unit}', :from::timestamptz AT TIME ZONE 'UTC'),
                            date_trunc('${unit}', (:to::timestamptz - interval '1 microsecond') AT TIME ZONE 'UTC'),
                            interval '1 ${unit}') AS b(t)
       LEFT JOIN counts c ON c.t = b.t
      GROUP BY b.t
      ORDER BY b.t`,
    { projectId: input.projectId, campaignId: input.campaignId, from: input.from, to: input.to },
  );
  return rows;
}

// ───────────────────────────── campaigns ─────────────────────────────

export const FUNNEL_STAGES = ['sent', 'delivered', 'opened', 'clicked', 'bounced', 'complained', 'failed'] as const;
export type FunnelStage = (typeof FUNNEL_STAGES)[number];
export type Funnel = Record<FunnelStage, number> & { openRate: number; clickRate: number; bounceRate: number };

/**
 * The campaign counters db/campaignCounters keeps (each moves once per email and milestone), so these
 * figures always agree with GET /campaigns/:id/stats; nothing here recounts emails.
 */
const COUNTERS: Record<FunnelStage, string> = {
  sent: 'sent_count',
  delivered: 'delivered_count',
  opened: 'opened_count',
  clicked: 'clicked_count',
  bounced: 'bounced_count',
  complained: 'complained_count',
  failed: 'failed_count',
};

/** Rates are shares of `sent`, rounded to 4 decimals (0 when nothing was sent), as in campaign stats. */
function withRates(counts: Record<FunnelStage, number>): Funnel {
  return { ...counts, ...sendRates(counts) };
}

/** Campaigns of the project that started sending in [from, to). */
const startedIn = (db: Knex, projectId: string, from: Date, to: Date) =>
  db('campaigns').where('project_id', projectId).andWhere('started_at', '>=', from).andWhere('started_at', '<', to);

export const CAMPAIGN_SORTS = ['sent', 'opened', 'clicked', 'openRate', 'clickRate'] as const;
export type CampaignSort = (typeof CAMPAIGN_SORTS)[number];

export type CampaignFunnel = Funnel & { id: string; name: string; status: string; totalRecipients: number; startedAt: Date };

/** Campaigns that started sending in the window, ranked by `sort`; empty on a schema without campaigns. */
export async function topCampaigns(db: Knex, input: { projectId: string; from: Date; to: Date; sort: CampaignSort; limit: number }): Promise<CampaignFunnel[]> {
  const order: Record<CampaignSort, string> = {
    sent: 'sent_count',
    opened: 'opened_count',
    clicked: 'clicked_count',
    openRate: 'opened_count::float8 / nullif(sent_count, 0)',
    clickRate: 'clicked_count::float8 / nullif(sent_count, 0)',
  };
  const rows = await startedIn(db, input.projectId, input.from, input.to)
    .orderByRaw(`${order[input.sort]} DESC NULLS LAST, started_at DESC, id`)
    .limit(input.limit)
    .select('id', 'name', 'status', 'total_recipients', 'started_at', ...FUNNEL_STAGES.map((s) => `${COUNTERS[s]} as ${s}`));
  return rows.map(({ id, name, status, total_recipients, started_at, ...counts }: any) => ({
    id,
    name,
    status,
    totalRecipients: total_recipients,
    startedAt: started_at,
    ...withRates(counts),
  }));
}

export interface CampaignTotals extends Funnel {
  /** Campaigns that started sending in the window. */
  campaigns: number;
  totalRecipients: number;
  /** All of the project's campaigns by status, whatever the window. */
  byStatus: Record<string, number>;
}

export async function campaignTotals(db: Knex, projectId: string, from: Date, to: Date): Promise<CampaignTotals> {
  const [[row], statuses] = await Promise.all([
    startedIn(db, projectId, from, to).select(
      db.raw('count(*)::int AS campaigns'),
      db.raw('coalesce(sum(total_recipients), 0)::int AS "totalRecipients"'),
      ...FUNNEL_STAGES.map((s) => db.raw(`coalesce(sum(${COUNTERS[s]}), 0)::int AS ${s}`)),
    ),
    db('campaigns').where('project_id', projectId).groupBy('status').select('status', db.raw('count(*)::int AS count')),
  ]);
  const { campaigns, totalRecipients, ...counts } = row as Record<FunnelStage | 'campaigns' | 'totalRecipients', number>;
  return { campaigns, totalRecipients, ...withRates(counts), byStatus: Object.fromEntries(statuses.map((r: any) => [r.status, r.count])) };
}
