import type { Knex } from 'knex';
import { deterministicUuid } from '../lib/ids';
import type { CampaignRow } from './campaigns';

/**
 * The per-recipient records the `campaignSend` batches write (docs/campaigns.md, "Exactly one email
 * per recipient"). A recipient's record is its `emails` row (one per campaign and contact, unique
 * index `emails_campaign_contact`), so campaign mail shows up in the activity feed and provider
 * events find it exactly like transactional mail. Its status says how far the hand-over got:
 * QUEUED (recorded, not offered: left by an attempt that stopped before its provider call), SENDING
 * (offered, or about to be; outcome unknown until the provider answers), SENT (accepted), FAILED.
 * The statements that write and move those rows (claimPage, dropUnsent, settleCancelled) are db/emailStates'.
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
