import { campaignEngagementTotals, type EngagementTotals } from './tracking';
import type { TrackingPatch } from '../lib/trackingSettings';
import type { Knex } from 'knex';
import type { MessageContentColumns } from './messageContent';
import { sendRates } from '../lib/math';
import { whereAnyContains } from './search';
import { pageOf, ListingQuery } from './pages';
import { TEMPLATE_TYPES, TemplateType } from './templates';
import { compileFilter, FilterError, FieldTypes, loadFieldTypes, matchingContactsQuery } from './filters';
import { findSegment, lockTargetSegment, segmentMembersQuery, SegmentRow } from './segments';
import { inTransaction } from './transaction';
import { uuid } from '../lib/ids';
import { pendingCount } from './campaignDeferrals';
import { campaignPacing, type Pacing } from './sendThrottle';
import { variantStats, type CampaignAbTest, type VariantStats } from './campaignAbTest';
import { topicStateSql } from './topics';
import { consentedSql } from './consent';

/**
 * Campaigns (spec "Campaign", "Campaign status"; docs/campaigns.md): the resource, its
 * status rules and the audience. The per-recipient records the `campaignSend` batches write are in
 * db/campaignEmails.ts.
 */

/** PAUSED is this service's extension of the spec's statuses (POST /campaigns/:id/pause, docs/api.md). */
export const CAMPAIGN_STATUSES = ['DRAFT', 'SCHEDULED', 'SENDING', 'PAUSED', 'SENT', 'CANCELLED'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

export const AUDIENCE_TYPES = ['ALL', 'SEGMENT', 'FILTERED'] as const;
export type AudienceType = (typeof AUDIENCE_TYPES)[number];

export const CAMPAIGN_TYPES = TEMPLATE_TYPES;
export type CampaignType = TemplateType;

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
}

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
const lockCampaign = (trx: Knex.Transaction, projectId: string, id: string) =>
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
    })
    .returning('*');
  return row;
}

// ───────────────────────────── status transitions ─────────────────────────────

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

// ───────────────────────────── audience ─────────────────────────────

/**
 * The campaign's audience as a builder over `contacts c`. MARKETING goes only to subscribed
 * contacts; TRANSACTIONAL and HEADLESS ignore subscription; a campaign sent as a topic goes only
 * to contacts subscribed globally and to the topic. A segment that no longer exists is an
 * empty audience. Synchronous on purpose: a builder is thenable, so an async function returning
 * one would run it.
 */
function audienceQuery(knex: Knex, c: CampaignRow, fieldTypes: FieldTypes, segment?: SegmentRow): Knex.QueryBuilder {
  let q: Knex.QueryBuilder;
  if (c.audience_type === 'FILTERED') q = matchingContactsQuery(knex, c.project_id, c.audience_condition, fieldTypes);
  else if (c.audience_type === 'SEGMENT') q = segment ? segmentMembersQuery(knex, segment, fieldTypes) : knex({ c: 'contacts' }).whereRaw('false');
  else q = knex({ c: 'contacts' }).where('c.project_id', c.project_id);
  // The consent rule (db/consent.ts): a topic's mail, whatever its type, to contacts subscribed globally and to the topic.
  const consented = consentedSql({ type: c.type, topicId: c.topic_id }, 'c', (t) => topicStateSql('c.id', t));
  if (consented) q.whereRaw(consented.sql, consented.bindings);
  return q;
}

/**
 * How many contacts the campaign would go to if it started now: the query `beginSending` snapshots,
 * counted (the number a send's confirmation names). Throws FilterError when a FILTERED tree no longer compiles.
 */
export async function audienceCount(knex: Knex, c: CampaignRow): Promise<number> {
  const segment = c.audience_type === 'SEGMENT' && c.segment_id ? await findSegment(knex, c.project_id, c.segment_id) : undefined;
  const [{ n }] = await audienceQuery(knex, c, await loadFieldTypes(knex, c.project_id), segment)
    .clearSelect()
    .count({ n: '*' });
  return Number(n);
}

/** Throws FilterError when the tree does not compile against the project's field types (the 422 check). */
export async function assertAudienceCompiles(knex: Knex, projectId: string, tree: unknown): Promise<void> {
  compileFilter(tree, { fieldTypes: await loadFieldTypes(knex, projectId) });
}

// ───────────────────────────── stats ─────────────────────────────

export interface CampaignStats {
  totalRecipients: number;
  sent: number;
  delivered: number;
  opened: number;
  clicked: number;
  bounced: number;
  complained: number;
  unsubscribed: number;
  failed: number;
  pending: number;
  capped: number;
  openRate: number;
  clickRate: number;
  bounceRate: number;
  /** What holds the hand-over back: the project's send throttle or the campaign's own pace (db/sendThrottle). */
  pacing: Pacing;
  /** Only for a campaign with an A/B subject test. */
  variants?: VariantStats[];
  /** First-party tracking (docs/tracking.md): human opens and clicks with repeats, and machines' hits (not counted in opened/clicked). */
  engagement: EngagementTotals;
}

/** Unsubscribes that came from a bounce or a complaint are counted there, not as opt-outs. */
const INVOLUNTARY_SOURCES = ['bounce', 'complaint'];

/**
 * Counters from the campaign row; `unsubscribed` counts recipients who opted out (any route: link,
 * one-click header, provider) after their email went out. Rates are shares of `sent`, 0 to 1.
 */
/** `defaultSendRate`: SEND_RATE_PER_SECOND, the project's send rate unless its settings name one. */
export async function campaignStats(knex: Knex, c: CampaignRow, defaultSendRate: number): Promise<CampaignStats> {
  const { rows } = await knex.raw(
    `SELECT count(*) AS n FROM emails e
      WHERE e.campaign_id = ? AND e.sent_at IS NOT NULL AND e.contact_id IS NOT NULL
        AND EXISTS (SELECT 1 FROM events ev
                     WHERE ev.contact_id = e.contact_id AND ev.name = 'contact.unsubscribed' AND ev.created_at >= e.sent_at
                       AND coalesce(ev.data->>'source', '') <> ALL(?))`,
    [c.id, INVOLUNTARY_SOURCES],
  );
  return {
    totalRecipients: c.total_recipients,
    sent: c.sent_count,
    delivered: c.delivered_count,
    opened: c.opened_count,
    clicked: c.clicked_count,
    bounced: c.bounced_count,
    complained: c.complained_count,
    unsubscribed: Number(rows[0].n),
    failed: c.failed_count,
    pending: await pendingCount(knex, c.id),
    capped: c.capped_count ?? 0,
    ...sendRates({ sent: c.sent_count, opened: c.opened_count, clicked: c.clicked_count, bounced: c.bounced_count }),
    pacing: await campaignPacing(knex, c.project_id, c.send_rate_per_minute, defaultSendRate),
    ...(c.ab_test ? { variants: await variantStats(knex, c) } : {}),
    engagement: await campaignEngagementTotals(knex, c.id),
  };
}

const PROVIDER_COUNTERS = {
  delivered_at: 'delivered_count',
  opened_at: 'opened_count',
  clicked_at: 'clicked_count',
  bounced_at: 'bounced_count',
  complained_at: 'complained_count',
} as const;
export type ProviderMilestone = keyof typeof PROVIDER_COUNTERS;

/** Moves the campaign counter that matches a provider milestone of one of its emails. */
export async function bumpCampaignCounter(knex: Knex, campaignId: string, milestone: ProviderMilestone): Promise<void> {
  await knex('campaigns').where({ id: campaignId }).increment(PROVIDER_COUNTERS[milestone], 1);
}
