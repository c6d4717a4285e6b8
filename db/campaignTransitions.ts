import type { Knex } from 'knex';
import { FilterError, loadFieldTypes } from './filters';
import { findSegment, lockTargetSegment } from './segments';
import { inTransaction } from './transaction';
import { ACTIVE_STATUSES, CampaignRow, CampaignStatus, findCampaign, getCampaign, GuardedWrite, lockCampaign } from './campaigns';
import { audienceQuery } from './campaignAudience';

/** A campaign's status transitions (spec "Campaign status"; docs/campaigns.md): the API's and the `campaignSend` workflow's. */

/** DRAFT → SCHEDULED (with a time) or SENDING (immediate); a conflict from any other status. */
export async function requestSend(
  knex: Knex,
  projectId: string,
  id: string,
  scheduledFor: Date | null,
  localSchedule: string | null = null,
): Promise<GuardedWrite> {
  const [row] = await inTransaction(knex, async (trx) => {
    const target = await lockCampaign(trx, projectId, id);
    // A segment deleted before this point is an empty audience (docs/campaigns.md), not an error.
    if (target?.segment_id) await lockTargetSegment(trx, projectId, target.segment_id);
    return trx<CampaignRow>('campaigns')
      .where({ project_id: projectId, id, status: 'DRAFT' })
      .update({ status: scheduledFor ? 'SCHEDULED' : 'SENDING', scheduled_for: scheduledFor, local_schedule: localSchedule, updated_at: trx.fn.now() } as any)
      .returning('*');
  });
  if (row) return { row };
  const current = await findCampaign(knex, projectId, id);
  return current ? { conflict: current.status } : null;
}

/** SCHEDULED, SENDING or PAUSED → CANCELLED. Batches check the status before every hand-over. */
export async function cancelCampaign(knex: Knex, projectId: string, id: string): Promise<GuardedWrite> {
  const [row] = await knex<CampaignRow>('campaigns')
    .where({ project_id: projectId, id })
    .whereIn('status', ACTIVE_STATUSES)
    .update({ status: 'CANCELLED', updated_at: knex.fn.now() } as any)
    .returning('*');
  if (row) return { row };
  const current = await findCampaign(knex, projectId, id);
  return current ? { conflict: current.status } : null;
}

/**
 * SCHEDULED → DRAFT ("Unschedule"), while the workflow still sleeps: not once sending began, nor in
 * the last seconds before the time, when the workflow may be waking (it would then find a DRAFT and
 * end on its own, and a second send could not start under the same workflow id).
 */
export async function unscheduleCampaign(knex: Knex, projectId: string, id: string): Promise<GuardedWrite> {
  const [row] = await knex<CampaignRow>('campaigns')
    .where({ project_id: projectId, id, status: 'SCHEDULED' })
    .whereNull('started_at')
    .whereRaw("scheduled_for > now() + interval '5 seconds'")
    .update({ status: 'DRAFT', scheduled_for: null, local_schedule: null, updated_at: knex.fn.now() } as any)
    .returning('*');
  if (row) return { row };
  const current = await findCampaign(knex, projectId, id);
  return current ? { conflict: current.status } : null;
}

/** What the workflow sees when it wakes: whether to go on. */
export interface BeginResult {
  status: CampaignStatus;
  totalRecipients: number;
  /** The campaign's pace, read when sending starts (absent in results recorded before it existed). */
  sendRatePerMinute?: number | null;
  /** Set when the campaign has an A/B subject test (absent otherwise, as in results recorded before tests existed). */
  abTest?: true;
  /** Why a campaign that could not start was cancelled. */
  error?: string;
}

/**
 * Starts sending: SCHEDULED (or SENDING from an immediate send) → SENDING, with the audience
 * snapshot and totalRecipients written in the same transaction. Idempotent: once `started_at` is
 * set a repeat only reports the status. A FILTERED audience whose tree no longer compiles (a data
 * key has since been registered with another type) cannot be sent, and the campaign is cancelled.
 */
export async function beginSending(knex: Knex, campaignId: string): Promise<BeginResult> {
  return knex.transaction(async (trx) => {
    const c = await trx<CampaignRow>('campaigns').where({ id: campaignId }).forUpdate().first();
    if (!c) return { status: 'CANCELLED', totalRecipients: 0, error: 'campaign deleted' };
    const abTest = c.ab_test ? { abTest: true as const } : {};
    if (c.started_at || !ACTIVE_STATUSES.includes(c.status))
      return { status: c.status, totalRecipients: c.total_recipients, sendRatePerMinute: c.send_rate_per_minute ?? null, ...abTest };
    let audience: Knex.QueryBuilder;
    try {
      audience = audienceQuery(trx, c, await loadFieldTypes(trx, c.project_id), c.segment_id ? await findSegment(trx, c.project_id, c.segment_id) : undefined);
    } catch (err) {
      if (!(err instanceof FilterError)) throw err;
      await trx('campaigns').where({ id: c.id }).update({ status: 'CANCELLED', updated_at: trx.fn.now() });
      return { status: 'CANCELLED', totalRecipients: 0, error: `audience condition no longer valid: ${err.message}` };
    }
    const { rowCount } = await trx.raw('INSERT INTO campaign_recipients (campaign_id, contact_id) SELECT ?, a.id FROM (?) a ON CONFLICT DO NOTHING', [
      c.id,
      audience.select('c.id'),
    ]);
    await trx('campaigns')
      .where({ id: c.id })
      .update({ status: 'SENDING', total_recipients: rowCount ?? 0, started_at: trx.fn.now(), updated_at: trx.fn.now() });
    return { status: 'SENDING', totalRecipients: rowCount ?? 0, sendRatePerMinute: c.send_rate_per_minute ?? null, ...abTest };
  });
}

/**
 * SENDING ⇄ PAUSED, written by the campaign's workflow when it accepts a pause or resume (so the
 * row never says PAUSED while the workflow would still hand batches out). Idempotent; any other
 * status (cancelled meanwhile) is left alone. Answers the status after the write.
 */
export async function setSendingPaused(knex: Knex, campaignId: string, paused: boolean): Promise<CampaignStatus | null> {
  const [from, to]: CampaignStatus[] = paused ? ['SENDING', 'PAUSED'] : ['PAUSED', 'SENDING'];
  const [row] = await knex<CampaignRow>('campaigns')
    .where({ id: campaignId, status: from })
    .update({ status: to, updated_at: knex.fn.now() } as any)
    .returning('status');
  return row?.status ?? (await getCampaign(knex, campaignId))?.status ?? null;
}

/** SENDING → SENT once the last batch is handed over (idempotent). */
export async function finishSending(knex: Knex, campaignId: string): Promise<CampaignStatus | null> {
  const [row] = await knex<CampaignRow>('campaigns')
    .where({ id: campaignId, status: 'SENDING' })
    .update({ status: 'SENT', sent_at: knex.fn.now(), updated_at: knex.fn.now() } as any)
    .returning('status');
  if (row) return row.status;
  return (await getCampaign(knex, campaignId))?.status ?? null;
}

/** SCHEDULED, SENDING or PAUSED campaigns, oldest first: their workflows must be running. */
export async function activeCampaigns(knex: Knex, limit: number): Promise<Pick<CampaignRow, 'id' | 'project_id' | 'name' | 'scheduled_for'>[]> {
  return knex('campaigns').whereIn('status', ACTIVE_STATUSES).orderBy('updated_at').limit(limit).select('id', 'project_id', 'name', 'scheduled_for');
}
