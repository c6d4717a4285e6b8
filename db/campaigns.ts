import type { TrackingPatch } from '../lib/trackingSettings';
import type { EmailDocument } from '../lib/emailDocument';
import type { Knex } from 'knex';
import type { MessageContentColumns } from './messageContent';
import { whereAnyContains } from './search';
import { pageOf, ListingQuery } from './pages';
import { TEMPLATE_TYPES, TemplateType } from './templates';
import { lockTargetSegment } from './segments';
import { inTransaction } from './transaction';
import { uuid } from '../lib/ids';
import type { CampaignAbTest } from './campaignAbTest';

/**
 * Campaigns (spec "Campaign", "Campaign status"; docs/campaigns.md): the resource and its rows.
 * Beside it: the status transitions (db/campaignTransitions.ts), the audience
 * (db/campaignAudience.ts), the stats (db/campaignStats.ts), the provider counters
 * (db/campaignCounters.ts); the per-recipient records the `campaignSend` batches write are in
 * db/campaignEmails.ts.
 */

/** PAUSED is this service's extension of the spec's statuses (POST /campaigns/:id/pause, docs/api.md). */
export const CAMPAIGN_STATUSES = ['DRAFT', 'SCHEDULED', 'SENDING', 'PAUSED', 'SENT', 'CANCELLED'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

export const AUDIENCE_TYPES = ['ALL', 'SEGMENT', 'FILTERED'] as const;
export type AudienceType = (typeof AUDIENCE_TYPES)[number];

export const CAMPAIGN_TYPES = TEMPLATE_TYPES;
export type CampaignType = TemplateType;

export const CAMPAIGN_KINDS = ['REGULAR', 'RSS'] as const;
export type CampaignKind = (typeof CAMPAIGN_KINDS)[number];

/** An RSS campaign's definition (docs/campaigns.md "RSS-to-email"). */
export interface RssSettings {
  feedUrl: string;
  schedule: { frequency: 'daily' | 'weekly'; time: string; timezone: string; weekday?: number | null };
  templateId: string;
}

/** One feed item as a template sees it (`{% for item in items %}`). */
export interface RssItem {
  title: string;
  link: string;
  summary: string;
  content: string;
  date: string | null;
}

export const CAMPAIGN_SORTS = ['name', 'createdAt', 'updatedAt'] as const;
export type CampaignSort = (typeof CAMPAIGN_SORTS)[number];

/** Statuses in which a campaign's `campaignSend` workflow is alive (sleeping, sending or paused). */
export const ACTIVE_STATUSES: readonly CampaignStatus[] = ['SCHEDULED', 'SENDING', 'PAUSED'];
/** Statuses in which the content and audience may still change. */
const EDITABLE_STATUSES: readonly CampaignStatus[] = ['DRAFT', 'SCHEDULED'];

export interface CampaignRow extends MessageContentColumns<CampaignType> {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  status: CampaignStatus;
  audience_type: AudienceType;
  audience_condition: unknown | null;
  segment_id: string | null;
  /** The topic it is sent as (db/topics): only the topic's subscribers receive it. */
  topic_id: string | null;
  scheduled_for: Date | null;
  total_recipients: number;
  sent_count: number;
  delivered_count: number;
  opened_count: number;
  clicked_count: number;
  bounced_count: number;
  complained_count: number;
  failed_count: number;
  /** Set by a send in each recipient's time zone: the local date-time (`2026-12-01T09:00`), no offset. */
  local_schedule?: string | null;
  capped_count?: number;
  /** Hand-over pace (warm-up of a new domain); null: as fast as batches go. */
  send_rate_per_minute?: number | null;
  /** The A/B subject test (db/campaignAbTest); null: none. */
  ab_test?: CampaignAbTest | null;
  /** Index of the winning subject once chosen. */
  ab_winner?: number | null;
  ab_winner_due_at?: Date | null;
  /** First-party tracking of its emails (docs/tracking.md); a key left out or null: the project's settings. */
  tracking?: TrackingPatch | null;
  /** Listed in the project's public archive once SENT (migration 051). */
  archive?: boolean;
  /** REGULAR, or RSS: a recurring feed digest (db/rssCampaigns.ts) that is never sent itself. */
  kind?: CampaignKind;
  /** An RSS campaign's feed, schedule and template. */
  rss?: RssSettings | null;
  /** The newest feed item date an RSS campaign has sent. */
  rss_last_item_at?: Date | null;
  /** A child campaign's feed items (the template's `items`); null for others. */
  rss_items?: RssItem[] | null;
  /** The RSS campaign a child campaign was sent for. */
  parent_id?: string | null;
  /** `html`, or `blocks`: `body` is compiled from `document` when the campaign is saved (migration 054). */
  editor?: 'html' | 'blocks';
  document?: EmailDocument | null;
  /** The text part compiled with a block document; used when `text` is null. */
  compiled_text?: string | null;
  started_at: Date | null;
  sent_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** The API's field names (create and full replace). */
export interface CampaignFields {
  name: string;
  description?: string | null;
  subject: string;
  body: string;
  text?: string | null;
  from: string;
  fromName?: string | null;
  replyTo?: string | null;
  type: CampaignType;
  audienceType: AudienceType;
  segmentId?: string | null;
  audienceCondition?: unknown;
  topicId?: string | null;
  sendRatePerMinute?: number | null;
  abTest?: CampaignAbTest | null;
  tracking?: TrackingPatch | null;
  archive?: boolean;
  editor?: 'html' | 'blocks';
  document?: EmailDocument | null;
  compiledText?: string | null;
}

/**
 * The text/plain source a campaign's emails render: the author's own, else the one compiled with its
 * block document, else null (generated from each rendered body).
 */
export const campaignTextSource = (c: Pick<CampaignRow, 'text' | 'compiled_text'>): string | null => c.text ?? c.compiled_text ?? null;

/** Only the audience fields the audience type uses are kept, so a stored campaign never carries a stale one. */
function toColumns(f: CampaignFields) {
  return {
    name: f.name,
    description: f.description ?? null,
    subject: f.subject,
    body: f.body,
    text: f.text ?? null,
    from: f.from,
    from_name: f.fromName ?? null,
    reply_to: f.replyTo ?? null,
    type: f.type,
    audience_type: f.audienceType,
    segment_id: f.audienceType === 'SEGMENT' ? (f.segmentId ?? null) : null,
    audience_condition: f.audienceType === 'FILTERED' ? JSON.stringify(f.audienceCondition) : null,
    topic_id: f.topicId ?? null,
    send_rate_per_minute: f.sendRatePerMinute ?? null,
    ab_test: f.abTest ? JSON.stringify(f.abTest) : null,
    tracking: f.tracking ? JSON.stringify(f.tracking) : null,
    archive: f.archive ?? false,
    editor: f.editor ?? 'html',
    document: f.editor === 'blocks' && f.document ? JSON.stringify(f.document) : null,
    compiled_text: f.editor === 'blocks' ? (f.compiledText ?? null) : null,
  };
}

// ───────────────────────────── CRUD ─────────────────────────────

const SORT_SQL: Record<CampaignSort, string> = { name: 'lower(name)', createdAt: 'created_at', updatedAt: 'updated_at' };

export interface ListCampaignsInput extends ListingQuery<CampaignSort> {
  status?: CampaignStatus;
}

export async function listCampaigns(knex: Knex, projectId: string, input: ListCampaignsInput) {
  const filtered = () => {
    const q = knex<CampaignRow>('campaigns').where({ project_id: projectId });
    if (input.status) q.andWhere({ status: input.status });
    if (input.search) whereAnyContains(q, ['name', 'subject', 'from'], input.search);
    return q;
  };
  return pageOf<CampaignRow>(filtered, { page: input.page, pageSize: input.pageSize, orderSql: SORT_SQL[input.sort], dir: input.dir });
}

export async function findCampaign(knex: Knex, projectId: string, id: string): Promise<CampaignRow | undefined> {
  return knex<CampaignRow>('campaigns').where({ project_id: projectId, id }).first();
}

export async function getCampaign(knex: Knex, id: string): Promise<CampaignRow | undefined> {
  return knex<CampaignRow>('campaigns').where({ id }).first();
}

export async function createCampaign(knex: Knex, projectId: string, fields: CampaignFields): Promise<CampaignRow> {
  const [row] = await knex<CampaignRow>('campaigns')
    .insert({ id: uuid(), project_id: projectId, ...toColumns(fields) } as any)
    .returning('*');
  return row;
}

export type GuardedWrite = { row: CampaignRow } | { conflict: CampaignStatus } | null;

/** The campaign row, locked for the write that follows (db/segments: campaign row, then segment row). */
export const lockCampaign = (trx: Knex.Transaction, projectId: string, id: string) =>
  trx<CampaignRow>('campaigns').where({ project_id: projectId, id }).forUpdate().first('segment_id');

/**
 * Full replace of content and audience, only while DRAFT or SCHEDULED (a scheduled send reads the
 * campaign when it starts, so the edit goes out). null when the project has no such campaign;
 * `missingSegment` when the segment it names is not (or no longer) the project's.
 */
export async function replaceCampaign(knex: Knex, projectId: string, id: string, fields: CampaignFields): Promise<GuardedWrite | { missingSegment: true }> {
  const columns = toColumns(fields);
  const written = await inTransaction(knex, async (trx) => {
    if (!(await lockCampaign(trx, projectId, id))) return null;
    // A SCHEDULED campaign may be pointed at another segment here (db/segments lockTargetSegment).
    if (columns.segment_id && !(await lockTargetSegment(trx, projectId, columns.segment_id))) return { missingSegment: true as const };
    const [row] = await trx<CampaignRow>('campaigns')
      .where({ project_id: projectId, id })
      .whereIn('status', EDITABLE_STATUSES)
      .update({ ...columns, updated_at: trx.fn.now() } as any)
      .returning('*');
    return { row };
  });
  if (written && 'missingSegment' in written) return written;
  const row = written?.row;
  if (row) return { row };
  const current = await findCampaign(knex, projectId, id);
  return current ? { conflict: current.status } : null;
}

/** Shows or hides a campaign in the public archive, whatever its status; undefined when the project has no such campaign. */
export async function setCampaignArchive(knex: Knex, projectId: string, id: string, archive: boolean): Promise<CampaignRow | undefined> {
  const [row] = await knex<CampaignRow>('campaigns')
    .where({ project_id: projectId, id })
    .update({ archive, updated_at: knex.fn.now() } as any)
    .returning('*');
  return row;
}

/** Refused (conflict) while the campaign's workflow is alive: cancel it first. */
export async function deleteCampaign(knex: Knex, projectId: string, id: string): Promise<{ deleted: true } | { conflict: CampaignStatus } | null> {
  const n = await knex('campaigns').where({ project_id: projectId, id }).whereNotIn('status', ACTIVE_STATUSES).del();
  if (n > 0) return { deleted: true };
  const current = await findCampaign(knex, projectId, id);
  return current ? { conflict: current.status } : null;
}

/** A DRAFT copy named "<name> (copy)" with fresh counters; null when the project has no such campaign. */
export async function duplicateCampaign(knex: Knex, projectId: string, id: string): Promise<CampaignRow | null> {
  const original = await findCampaign(knex, projectId, id);
  if (!original) return null;
  const [row] = await knex<CampaignRow>('campaigns')
    .insert({
      id: uuid(),
      project_id: projectId,
      name: `${original.name} (copy)`,
      description: original.description,
      subject: original.subject,
      body: original.body,
      text: original.text,
      editor: original.editor ?? 'html',
      document: original.document ? (JSON.stringify(original.document) as any) : null,
      compiled_text: original.compiled_text ?? null,
      from: original.from,
      from_name: original.from_name,
      reply_to: original.reply_to,
      type: original.type,
      audience_type: original.audience_type,
      segment_id: original.segment_id,
      topic_id: original.topic_id,
      audience_condition: original.audience_condition === null ? null : (JSON.stringify(original.audience_condition) as any),
      send_rate_per_minute: original.send_rate_per_minute ?? null,
      tracking: original.tracking ? (JSON.stringify(original.tracking) as any) : null,
      ab_test: original.ab_test ? (JSON.stringify(original.ab_test) as any) : null,
      // An RSS campaign's copy is another RSS campaign (a DRAFT, its own Schedule once activated), not a one-off.
      ...(original.kind === 'RSS' ? { kind: 'RSS' as const, rss: JSON.stringify(original.rss) as any } : {}),
    })
    .returning('*');
  return row;
}
