import type { Knex } from 'knex';
import { deterministicUuid } from '../lib/ids';
import { binaryTextArray } from './binaryArrays';
import { LINKS_OF } from './tracking';
import type { CampaignRow } from './campaigns';
import { SUPPRESSED_REASON } from './emails';
import { suppressedEventBindings, suppressedEventsSql, suppressedSql, type SuppressedEvent } from './suppressions';

/** The suppression check of a fresh row (its project is the campaign's) and of a stored one. */
const SUPPRESSED_NEW = suppressedSql(':projectId::uuid', 'u.to_email');
const SUPPRESSED_ROW = suppressedSql('emails.project_id', 'emails.to_email');

/**
 * The per-recipient records the `campaignSend` batches write (docs/campaigns.md, "Exactly one email
 * per recipient"). A recipient's record is its `emails` row (one per campaign and contact, unique
 * index `emails_campaign_contact`), so campaign mail shows up in the activity feed and provider
 * events find it exactly like transactional mail. Its status says how far the hand-over got:
 * QUEUED (recorded, not offered: left by an attempt that stopped before its provider call), SENDING
 * (offered, or about to be; outcome unknown until the provider answers), SENT (accepted), FAILED.
 *
 * A batch costs a fixed number of statements whatever its size (arrays travel as one parameter
 * each), since at campaign scale the round trips and per-row statements are what limit throughput.
 */

/** The id of a recipient's email row: derived, so a re-run batch finds the row it already wrote. */
export const campaignEmailId = (campaignId: string, contactId: string) => deterministicUuid('campaign-email', campaignId, contactId);

/**
 * Where the next `count` batches of the audience snapshot end: the contact id of every
 * `batchSize`-th recipient after `after`, and of the last one when fewer remain. `more` says
 * recipients are left after the last bound. The snapshot never changes once sending started, so
 * the bounds stay valid for as long as the batches take.
 */
export async function batchBounds(
  knex: Knex,
  campaignId: string,
  after: string,
  batchSize: number,
  count: number,
): Promise<{ bounds: string[]; more: boolean }> {
  const span = batchSize * count;
  const { rows } = await knex.raw(
    `SELECT contact_id, rn, n FROM (
       SELECT contact_id, row_number() OVER (ORDER BY contact_id) AS rn, count(*) OVER () AS n
         FROM (SELECT contact_id FROM campaign_recipients WHERE campaign_id = ? AND contact_id > ? ORDER BY contact_id LIMIT ?) p
     ) s
     WHERE rn % ? = 0 OR rn = n
     ORDER BY rn`,
    [campaignId, after, span + 1, batchSize],
  );
  const within = rows.filter((r: { rn: number }) => Number(r.rn) <= span);
  return { bounds: within.map((r: { contact_id: string }) => r.contact_id), more: rows.length > 0 && Number(rows[0].n) > span };
}

export interface RecipientRow {
  contact_id: string;
  /** null when the contact was deleted since the snapshot. */
  email: string | null;
  subscribed: boolean | null;
  /** The contact's state of the campaign's topic now (db/topics); null when the campaign has none. */
  topic_subscribed: boolean | null;
  data: Record<string, unknown> | null;
  /** The recipient's email row status; null when no row was written yet. */
  email_status: string | null;
  /** Deferred or capped by an earlier attempt (db/campaignDeferrals): not handed over by this pass. */
  set_aside: boolean;
}

/** A recipient's state of its campaign's topic, read as it is now (`r`: a row with campaign_id and contact_id). */
export const RECIPIENT_TOPIC_SQL = (r: string) =>
  `(SELECT COALESCE(ctp.subscribed, t.default_subscribed) FROM campaigns cp JOIN topics t ON t.id = cp.topic_id
     LEFT JOIN contact_topics ctp ON ctp.topic_id = t.id AND ctp.contact_id = ${r}.contact_id
    WHERE cp.id = ${r}.campaign_id) AS topic_subscribed`;

/**
 * A page's contacts and their campaign emails, each read by its key (`r`: the page, a subquery of
 * campaign_id and contact_id already ordered and limited; one `?`, the project). Not joins over
 * the audience: statistics gathered before a campaign began say it has no email rows (nor, for a
 * new project, contacts), and then the planner read all the campaign's emails for each page, or
 * once per recipient (2.5 s a page 20,000 recipients in). A subquery with a LIMIT is never
 * flattened into a join, so the page is cut first and each of its rows costs one probe per table.
 */
export const RECIPIENT_ROWS_SQL = (r: string) => ({
  columns: `ct.email, ct.subscribed, ct.data,
            (SELECT e.status FROM emails e WHERE e.campaign_id = ${r}.campaign_id AND e.contact_id = ${r}.contact_id) AS email_status`,
  contact: `LEFT JOIN LATERAL (SELECT c.email, c.subscribed, c.data FROM contacts c WHERE c.id = ${r}.contact_id AND c.project_id = ? LIMIT 1) ct ON true`,
});

/**
 * The next page of the snapshot after `after` (and up to `until` when given), with each contact as
 * it is now and its email row's status.
 */
export async function recipientPage(
  knex: Knex,
  c: Pick<CampaignRow, 'id' | 'project_id'>,
  after: string,
  limit: number,
  until?: string,
): Promise<RecipientRow[]> {
  const { rows } = await knex.raw(
    `SELECT r.contact_id, ${RECIPIENT_ROWS_SQL('r').columns}, ${RECIPIENT_TOPIC_SQL('r')},
            (EXISTS (SELECT 1 FROM campaign_deferrals d WHERE d.campaign_id = r.campaign_id AND d.contact_id = r.contact_id)
             OR EXISTS (SELECT 1 FROM campaign_capped k WHERE k.campaign_id = r.campaign_id AND k.contact_id = r.contact_id)) AS set_aside
       FROM (SELECT campaign_id, contact_id FROM campaign_recipients
              WHERE campaign_id = ? AND contact_id > ? ${until === undefined ? '' : 'AND contact_id <= ?'}
              ORDER BY contact_id LIMIT ?) r
       ${RECIPIENT_ROWS_SQL('r').contact}
      ORDER BY r.contact_id`,
    until === undefined ? [c.id, after, limit, c.project_id] : [c.id, after, until, limit, c.project_id],
  );
  return rows;
}

export interface RecipientEmail {
  id: string;
  contactId: string;
  to: string;
  subject: string;
  body: string;
  /** The text/plain part as rendered. */
  text: string;
  headers: Record<string, string>;
  /** The A/B test variant (subject index) of a test-group recipient (db/campaignAbTest). */
  variant?: number | null;
  /** Set when rendering failed: the row is written FAILED and never handed over. */
  error?: string;
  /** First-party tracking the body got (docs/tracking.md), and the original URLs of its rewritten links. */
  trackOpens?: boolean;
  trackClicks?: boolean;
  links?: string[] | null;
}

export interface ClaimedEmail {
  id: string;
  contact_id: string;
  to_email: string;
  rendered_subject: string;
  rendered_body: string;
  /** Null for a row rendered before the text part was stored (migration 029): generated when handed over. */
  rendered_text: string | null;
  headers: Record<string, string>;
}

export interface PageClaim {
  /** The campaign was still SENDING: when false nothing was written or claimed. */
  live: boolean;
  /** Ids of `fresh` rows written SENDING by this call (not those another attempt had written). */
  written: Set<string>;
  /** The page's QUEUED rows this call moved to SENDING, with what they hold. */
  requeued: ClaimedEmail[];
  /** `fresh` rows written FAILED (their render error). */
  unrenderable: number;
  /** Rows written or moved SUPPRESSED (the recipient is on the project's suppression list): never offered. */
  suppressed: number;
  /** Their `email.suppressed` events, committed with the claim, for routing. */
  events: SuppressedEvent[];
}

/**
 * The hand-over claim of a page, in one statement that also checks the campaign is still SENDING
 * (a cancel that commits first leaves the whole page unwritten and unclaimed):
 *   - `fresh` recipients' rows are written SENDING (or FAILED with their render error; failedCount
 *     moves by those). Rows that exist already stay as they are and are not in `written`;
 *   - rows of `queuedContactIds` still QUEUED move to SENDING;
 *   - either kind whose address is on the project's suppression list is SUPPRESSED instead (set-based:
 *     the list is read by the same statement, never per recipient), with its `email.suppressed` event.
 * The source body is not copied into every row: it is the campaign's (`campaign_id`).
 */
export async function claimPage(knex: Knex, c: CampaignRow, fresh: RecipientEmail[], queuedContactIds: string[], transport: string): Promise<PageClaim> {
  const { rows } = await knex.raw(
    `WITH live AS (SELECT EXISTS (SELECT 1 FROM campaigns WHERE id = :id AND status = 'SENDING') AS ok),
     fresh AS (
       INSERT INTO emails (id, project_id, contact_id, campaign_id, type, to_email, from_email, from_name, reply_to,
                           subject, body, headers, rendered_subject, rendered_body, rendered_text, status, transport, error, ab_variant,
                           track_opens, track_clicks, links)
       SELECT u.id::uuid, :projectId, u.contact_id, :id, :type, u.to_email, :from, :fromName, :replyTo,
              :subject, '', u.headers::jsonb, u.subject, u.body, u.text,
              CASE WHEN u.error IS NOT NULL THEN 'FAILED' WHEN ${SUPPRESSED_NEW} THEN 'SUPPRESSED' ELSE 'SENDING' END,
              CASE WHEN u.error IS NULL AND NOT ${SUPPRESSED_NEW} THEN :transport END,
              CASE WHEN u.error IS NOT NULL THEN u.error WHEN ${SUPPRESSED_NEW} THEN :suppressedReason END, u.variant::smallint,
              u.track_opens::boolean, u.track_clicks::boolean, ${LINKS_OF('u.links')}
         FROM unnest(:ids::text[], :contactIds::text[], :tos::text[], :headers::text[], :subjects::text[], :bodies::text[], :texts::text[], :errors::text[], :variants::text[],
                     :trackOpens::text[], :trackClicks::text[], :links::text[])
              AS u(id, contact_id, to_email, headers, subject, body, text, error, variant, track_opens, track_clicks, links)
        WHERE (SELECT ok FROM live)
       ON CONFLICT DO NOTHING
       RETURNING id, status, project_id, contact_id, campaign_id),
     requeued AS (
       UPDATE emails SET status = CASE WHEN ${SUPPRESSED_ROW} THEN 'SUPPRESSED' ELSE 'SENDING' END,
                         transport = CASE WHEN ${SUPPRESSED_ROW} THEN NULL ELSE :transport END,
                         error = CASE WHEN ${SUPPRESSED_ROW} THEN :suppressedReason ELSE error END,
                         updated_at = now()
        WHERE campaign_id = :id AND contact_id = ANY(:queued::text[]) AND status = 'QUEUED' AND (SELECT ok FROM live)
       RETURNING id, contact_id, to_email, rendered_subject, rendered_body, rendered_text, headers, status, project_id, campaign_id),
     suppressed_events AS (${suppressedEventsSql(
       '(SELECT id, project_id, contact_id, campaign_id, status FROM fresh UNION ALL SELECT id, project_id, contact_id, campaign_id, status FROM requeued)',
     )}),
     failed AS (
       UPDATE campaigns SET failed_count = failed_count + f.n
         FROM (SELECT count(*)::int AS n FROM fresh WHERE status = 'FAILED') f
        WHERE campaigns.id = :id AND f.n > 0)
     SELECT (SELECT ok FROM live) AS live,
            (SELECT coalesce(array_agg(id::text), '{}') FROM fresh WHERE status = 'SENDING') AS written,
            (SELECT coalesce(json_agg(r), '[]') FROM (SELECT id, contact_id, to_email, rendered_subject, rendered_body, headers FROM requeued WHERE status = 'SENDING') r) AS requeued,
            (SELECT count(*)::int FROM fresh WHERE status = 'FAILED') AS unrenderable,
            (SELECT count(*)::int FROM fresh WHERE status = 'SUPPRESSED') + (SELECT count(*)::int FROM requeued WHERE status = 'SUPPRESSED') AS suppressed,
            (SELECT coalesce(json_agg(suppressed_events), '[]') FROM suppressed_events) AS suppressed_events`,
    {
      id: c.id,
      projectId: c.project_id,
      type: c.type,
      from: c.from,
      fromName: c.from_name,
      replyTo: c.reply_to,
      subject: c.subject,
      transport,
      ids: binaryTextArray(fresh.map((e) => e.id)),
      contactIds: binaryTextArray(fresh.map((e) => e.contactId)),
      tos: binaryTextArray(fresh.map((e) => e.to)),
      headers: binaryTextArray(fresh.map((e) => JSON.stringify(e.headers))),
      subjects: binaryTextArray(fresh.map((e) => (e.error ? null : e.subject))),
      bodies: binaryTextArray(fresh.map((e) => (e.error ? null : e.body))),
      texts: binaryTextArray(fresh.map((e) => (e.error ? null : e.text))),
      errors: binaryTextArray(fresh.map((e) => e.error ?? null)),
      variants: binaryTextArray(fresh.map((e) => (e.variant === null || e.variant === undefined ? null : String(e.variant)))),
      trackOpens: binaryTextArray(fresh.map((e) => (e.error || e.trackOpens === undefined ? null : String(e.trackOpens)))),
      trackClicks: binaryTextArray(fresh.map((e) => (e.error || e.trackClicks === undefined ? null : String(e.trackClicks)))),
      links: binaryTextArray(fresh.map((e) => (e.error || !e.links ? null : JSON.stringify(e.links)))),
      queued: queuedContactIds,
      suppressedReason: SUPPRESSED_REASON,
      ...suppressedEventBindings([...fresh.map((e) => e.id), ...queuedContactIds.map((contactId) => campaignEmailId(c.id, contactId))]),
    },
  );
  const [row] = rows;
  return {
    live: row.live,
    written: new Set<string>(row.written),
    requeued: row.requeued,
    unrenderable: row.unrenderable,
    suppressed: row.suppressed,
    events: row.suppressed_events,
  };
}

/** Rows recorded for a page that a cancel stopped before hand-over: they never went out, so they go. */
export async function dropUnsent(knex: Knex, campaignId: string, contactIds: string[]): Promise<void> {
  if (contactIds.length) await knex('emails').where({ campaign_id: campaignId, status: 'QUEUED' }).whereIn('contact_id', contactIds).del();
}

/**
 * A cancelled campaign's rows no batch comes back for: an attempt cancelled in its retry wait, or
 * one that died, leaves them QUEUED (never offered) or SENDING (outcome unknown). QUEUED rows
 * never went out, so they go; SENDING rows are failed with `unknownOutcome`, unless the transport's
 * hand-over is the row itself (`sendingUnsent`: nothing left), when they go too. Runs once the
 * workflow's batches have settled (it cancels them with WAIT_CANCELLATION_COMPLETED).
 */
export async function settleCancelled(
  knex: Knex,
  campaignId: string,
  unknownOutcome: string,
  sendingUnsent: boolean,
): Promise<{ dropped: number; failed: number }> {
  return knex.transaction(async (trx) => {
    const dropped = await trx('emails')
      .where({ campaign_id: campaignId })
      .whereIn('status', sendingUnsent ? ['QUEUED', 'SENDING'] : ['QUEUED'])
      .del();
    const failed = sendingUnsent
      ? []
      : await trx('emails')
          .where({ campaign_id: campaignId, status: 'SENDING' })
          .update({ status: 'FAILED', error: unknownOutcome, updated_at: trx.fn.now() })
          .returning('id');
    if (failed.length) await trx('campaigns').where({ id: campaignId }).increment('failed_count', failed.length);
    return { dropped, failed: failed.length };
  });
}
