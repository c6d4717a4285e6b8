import type { Knex } from 'knex';
import { uuid } from '../lib/ids';
import type { SecurityConfig } from '../lib/config';

/**
 * When a project's mail hurts deliverability for everyone on the server, it is suspended
 * (projects.disabled = true, so its keys get 403 PROJECT_DISABLED). The defaults (config.security)
 * follow the big mailbox providers' guidance: bounces above 5 %, complaints above 0.3 %, judged
 * only once enough mail went out that a few bad addresses cannot trip it.
 */
export type SecurityThresholds = SecurityConfig;

/** Statuses of an email the provider accepted: bounces and complaints are counted against all of them. */
export const HANDED_OVER = ['SENT', 'DELIVERED', 'OPENED', 'CLICKED', 'BOUNCED', 'COMPLAINED'] as const;

export interface DeliveryStats {
  from: Date;
  to: Date;
  sent: number;
  bounced: number;
  complained: number;
  bounceRate: number;
  complaintRate: number;
}

async function deliveryStats(knex: Knex, projectId: string, windowHours: number): Promise<DeliveryStats> {
  const row = await knex('emails')
    .where({ project_id: projectId })
    .whereIn('status', HANDED_OVER as unknown as string[])
    .where('created_at', '>', knex.raw(`now() - make_interval(secs => ?)`, [windowHours * 3600]))
    .first(
      knex.raw('count(*)::int AS sent'),
      knex.raw(`count(*) FILTER (WHERE status = 'BOUNCED')::int AS bounced`),
      knex.raw(`count(*) FILTER (WHERE status = 'COMPLAINED')::int AS complained`),
      knex.raw('now() AS now'),
    );
  const sent = Number(row.sent);
  const to = new Date(row.now);
  return {
    from: new Date(to.getTime() - windowHours * 3600_000),
    to,
    sent,
    bounced: Number(row.bounced),
    complained: Number(row.complained),
    bounceRate: sent ? row.bounced / sent : 0,
    complaintRate: sent ? row.complained / sent : 0,
  };
}

function overThreshold(stats: DeliveryStats, t: SecurityThresholds): string | null {
  if (stats.sent < t.minSent) return null;
  const pct = (x: number) => `${(x * 100).toFixed(2)}%`;
  const hours = `${t.windowHours} hours`;
  if (stats.bounceRate > t.maxBounceRate) return `bounce rate ${pct(stats.bounceRate)} over the last ${hours} is above ${pct(t.maxBounceRate)}`;
  if (stats.complaintRate > t.maxComplaintRate) return `complaint rate ${pct(stats.complaintRate)} over the last ${hours} is above ${pct(t.maxComplaintRate)}`;
  return null;
}

/**
 * Suspends the project when its bounce or complaint rate is above the thresholds. Call it after
 * provider events (bounces, complaints) were recorded. Idempotent: a project already disabled is
 * left alone, and of two concurrent calls only one records the suspension.
 */
export async function checkSuspension(
  knex: Knex,
  projectId: string,
  thresholds: SecurityThresholds,
): Promise<{ suspended: boolean; reason: string | null; stats: DeliveryStats }> {
  const stats = await deliveryStats(knex, projectId, thresholds.windowHours);
  const reason = overThreshold(stats, thresholds);
  if (!reason) return { suspended: false, reason: null, stats };
  const suspended = await knex.transaction(async (trx) => {
    const [row] = await trx('projects').where({ id: projectId, disabled: false }).update({ disabled: true, updated_at: trx.fn.now() }).returning('id');
    if (!row) return false;
    await trx('project_suspensions').insert({
      id: uuid(),
      project_id: projectId,
      reason,
      sent: stats.sent,
      bounced: stats.bounced,
      complained: stats.complained,
    });
    return true;
  });
  return { suspended, reason, stats };
}

/** What the dashboard's security page shows. */
export async function securityState(knex: Knex, projectId: string, thresholds: SecurityThresholds) {
  const [stats, project, suspensions] = await Promise.all([
    deliveryStats(knex, projectId, thresholds.windowHours),
    knex('projects').where({ id: projectId }).first('disabled'),
    knex('project_suspensions').where({ project_id: projectId }).orderBy('created_at', 'desc').limit(20),
  ]);
  return {
    disabled: !!project?.disabled,
    window: { hours: thresholds.windowHours, from: stats.from, to: stats.to },
    sent: stats.sent,
    bounced: stats.bounced,
    complained: stats.complained,
    bounceRate: stats.bounceRate,
    complaintRate: stats.complaintRate,
    thresholds: { bounceRate: thresholds.maxBounceRate, complaintRate: thresholds.maxComplaintRate, minSent: thresholds.minSent },
    suspensions: suspensions.map((s: any) => ({
      id: s.id,
      reason: s.reason,
      sent: s.sent,
      bounced: s.bounced,
      complained: s.complained,
      createdAt: s.created_at,
    })),
  };
}
