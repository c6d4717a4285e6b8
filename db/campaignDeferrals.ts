import type { Knex } from 'knex';
import type { CampaignRow } from './campaigns';
import { RECIPIENT_ROWS_SQL, RECIPIENT_TOPIC_SQL, type RecipientRow } from './campaignEmails';

/**
 * Campaign recipients a batch set aside under the delivery controls (docs/campaigns.md): deferred
 * ones wait in `campaign_deferrals` until their `due_at` (the end of their quiet hours, or their own
 * local send time), capped ones are recorded once in `campaign_capped` and counted in `capped_count`.
 * Both are keyed by (campaign, contact), so a retried batch sets nobody aside twice.
 */

export async function deferRecipients(knex: Knex, campaignId: string, rows: { contactId: string; dueAt: number }[]): Promise<void> {
  if (rows.length === 0) return;
  await knex.raw(
    `INSERT INTO campaign_deferrals (campaign_id, contact_id, due_at)
     SELECT ?, u.contact_id, to_timestamp(u.due_ms::double precision / 1000) FROM unnest(?::text[], ?::text[]) AS u(contact_id, due_ms)
     ON CONFLICT DO NOTHING`,
    [campaignId, rows.map((r) => r.contactId), rows.map((r) => String(r.dueAt))],
  );
}

/** Records capped recipients; `capped_count` moves by those recorded for the first time. */
export async function recordCapped(knex: Knex, campaignId: string, contactIds: string[]): Promise<number> {
  if (contactIds.length === 0) return 0;
  const { rows } = await knex.raw(
    `WITH ins AS (INSERT INTO campaign_capped (campaign_id, contact_id) SELECT ?, unnest(?::text[]) ON CONFLICT DO NOTHING RETURNING 1),
          n AS (SELECT count(*)::int AS n FROM ins),
          bump AS (UPDATE campaigns SET capped_count = capped_count + n.n, updated_at = now() FROM n WHERE campaigns.id = ? AND n.n > 0)
     SELECT n FROM n`,
    [campaignId, contactIds, campaignId],
  );
  return rows[0].n;
}

/** The next page of deferred recipients due by `upTo`, shaped like the audience's pages. */
export async function dueDeferredPage(
  knex: Knex,
  c: Pick<CampaignRow, 'id' | 'project_id'>,
  upTo: Date,
  after: string,
  limit: number,
): Promise<RecipientRow[]> {
  const { rows } = await knex.raw(
    `SELECT d.contact_id, ${RECIPIENT_ROWS_SQL('d').columns}, ${RECIPIENT_TOPIC_SQL('d')},
            EXISTS (SELECT 1 FROM campaign_capped k WHERE k.campaign_id = d.campaign_id AND k.contact_id = d.contact_id) AS set_aside
       FROM (SELECT campaign_id, contact_id FROM campaign_deferrals
              WHERE campaign_id = ? AND due_at <= ? AND contact_id > ?
              ORDER BY contact_id LIMIT ?) d
       ${RECIPIENT_ROWS_SQL('d').contact}
      ORDER BY d.contact_id`,
    [c.id, upTo, after, limit, c.project_id],
  );
  return rows;
}

/** Deferred recipients due by `upTo`, once a pass has dealt with them all (handed over, failed, capped, unsubscribed). */
export async function clearDueDeferrals(knex: Knex, campaignId: string, upTo: Date): Promise<void> {
  await knex('campaign_deferrals').where({ campaign_id: campaignId }).where('due_at', '<=', upTo).del();
}

/** When the earliest deferred recipient is due; null when none waits. */
export async function nextDeferral(knex: Knex, campaignId: string): Promise<Date | null> {
  const row = await knex('campaign_deferrals').where({ campaign_id: campaignId }).min<{ min: Date | null }>('due_at as min').first();
  return row?.min ?? null;
}

/** Deferred recipients not handed over yet (a pass clears its rows only once all of them are dealt with). */
export async function pendingCount(knex: Knex, campaignId: string): Promise<number> {
  const { rows } = await knex.raw(
    `SELECT count(*)::int AS n FROM campaign_deferrals d
      WHERE d.campaign_id = ? AND NOT EXISTS (SELECT 1 FROM emails e WHERE e.campaign_id = d.campaign_id AND e.contact_id = d.contact_id)`,
    [campaignId],
  );
  return rows[0].n;
}
