import type { Knex } from 'knex';
import type { CampaignRow, CampaignStatus, RssItem, RssSettings } from './campaigns';
import type { MessageContentColumns } from './messageContent';
import { deterministicUuid } from '../lib/ids';

/**
 * RSS campaigns (docs/campaigns.md "RSS-to-email"): a campaign row of kind RSS is the recurring
 * definition (feed, schedule, template, audience); it is never sent itself. Each run that finds new
 * items writes a child campaign (kind REGULAR, `parent_id`, the items in `rss_items`) that the
 * ordinary campaign send delivers, and every run, whatever it found, a `campaign_runs` row.
 */

export type RunStatus = 'SENT' | 'NOTHING_NEW' | 'FAILED';

export interface CampaignRunRow {
  id: string;
  campaign_id: string;
  project_id: string;
  status: RunStatus;
  items: RssItem[];
  item_count: number;
  sent_campaign_id: string | null;
  error: string | null;
  started_at: Date;
  finished_at: Date | null;
}

/** The child campaign of a run: derived from the run's id, so a retried run writes the same one. */
export const runCampaignId = (runId: string) => deterministicUuid('rss-run-campaign', runId);

/** Moves an RSS campaign between statuses; undefined when it is not an RSS campaign of the project in one of `from`. */
export async function moveRssCampaign(
  knex: Knex,
  projectId: string,
  id: string,
  from: readonly CampaignStatus[],
  to: CampaignStatus,
): Promise<CampaignRow | undefined> {
  const [row] = await knex<CampaignRow>('campaigns')
    .where({ project_id: projectId, id, kind: 'RSS' } as any)
    .whereIn('status', from)
    .update({ status: to, updated_at: knex.fn.now() } as any)
    .returning('*');
  return row;
}

export async function findRssCampaign(knex: Knex, id: string): Promise<CampaignRow | undefined> {
  return knex<CampaignRow>('campaigns')
    .where({ id, kind: 'RSS' } as any)
    .first();
}

/** A run already recorded (a retried activity returns what the first attempt did). */
export async function findRun(knex: Knex, runId: string): Promise<CampaignRunRow | undefined> {
  return knex<CampaignRunRow>('campaign_runs').where({ id: runId }).first();
}

/**
 * Records a run and, when it has items, its child campaign (a DRAFT the caller then sends) and the
 * newest item date sent, in one transaction. `content`: the template's content as it is now.
 */
export async function recordRun(
  trx: Knex.Transaction,
  parent: CampaignRow,
  run: { id: string; status: RunStatus; items: RssItem[]; error?: string | null },
  content?: MessageContentColumns,
): Promise<CampaignRunRow> {
  let sentCampaignId: string | null = null;
  if (run.status === 'SENT' && content) {
    sentCampaignId = runCampaignId(run.id);
    const day = new Date().toISOString().slice(0, 10);
    await trx('campaigns')
      .insert({
        id: sentCampaignId,
        project_id: parent.project_id,
        name: `${parent.name} (${day})`.slice(0, 200),
        description: parent.description,
        subject: content.subject,
        body: content.body,
        text: content.text,
        from: content.from,
        from_name: content.from_name,
        reply_to: content.reply_to,
        type: parent.type,
        audience_type: parent.audience_type,
        audience_condition: parent.audience_condition === null ? null : JSON.stringify(parent.audience_condition),
        segment_id: parent.segment_id,
        topic_id: parent.topic_id,
        tracking: parent.tracking ? JSON.stringify(parent.tracking) : null,
        archive: parent.archive ?? false,
        kind: 'REGULAR',
        parent_id: parent.id,
        rss_items: JSON.stringify(run.items),
      })
      .onConflict('id')
      .ignore();
    const newest = run.items.map((i) => i.date).filter((d): d is string => d !== null);
    if (newest.length) {
      await trx('campaigns')
        .where({ id: parent.id })
        .update({ rss_last_item_at: trx.raw('GREATEST(rss_last_item_at, ?::timestamptz)', [newest.sort().at(-1)!]) });
    }
  }
  const [row] = await trx<CampaignRunRow>('campaign_runs')
    .insert({
      id: run.id,
      campaign_id: parent.id,
      project_id: parent.project_id,
      status: run.status,
      items: JSON.stringify(run.items) as any,
      item_count: run.items.length,
      sent_campaign_id: sentCampaignId,
      error: run.error ?? null,
      finished_at: trx.fn.now() as any,
    })
    .onConflict('id')
    .merge(['finished_at'])
    .returning('*');
  return row;
}

/** A campaign's runs, newest first (at most `limit`). */
/** The runs, newest first, each with the emails its child campaign has handed over so far. */
export async function listRuns(knex: Knex, projectId: string, campaignId: string, limit = 100): Promise<Array<CampaignRunRow & { emails_sent: number }>> {
  return knex('campaign_runs as r')
    .leftJoin('campaigns as c', 'c.id', 'r.sent_campaign_id')
    .where({ 'r.project_id': projectId, 'r.campaign_id': campaignId })
    .orderBy([
      { column: 'r.started_at', order: 'desc' },
      { column: 'r.id', order: 'desc' },
    ])
    .limit(limit)
    .select('r.*', knex.raw('coalesce(c.sent_count, 0)::int as emails_sent'));
}

export type { RssSettings };
