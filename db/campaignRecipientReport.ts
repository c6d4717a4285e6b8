import type { Knex } from 'knex';
import { decodeCursor, encodeCursor } from './cursors';

/** The recipient filters of a campaign's report (GET /campaigns/:id/recipients?status=…). */
export const RECIPIENT_STATUSES = ['delivered', 'opened', 'clicked', 'bounced', 'complained', 'unsubscribed'] as const;
export type RecipientStatus = (typeof RECIPIENT_STATUSES)[number];

export interface RecipientReportRow {
  email_id: string;
  contact_id: string;
  to_email: string;
  status: string;
  sent_at: Date | null;
  delivered_at: Date | null;
  opened_at: Date | null;
  clicked_at: Date | null;
  bounced_at: Date | null;
  complained_at: Date | null;
  unsubscribed_at: Date | null;
}

/**
 * The first opt-out of the recipient after their email went out; bounces and complaints unsubscribe
 * too, but they are counted as bounced or complained, as the campaign's stats count them.
 */
const UNSUBSCRIBED_AT = `(SELECT min(ev.created_at) FROM events ev
   WHERE ev.contact_id = e.contact_id AND ev.name = 'contact.unsubscribed' AND ev.created_at >= e.sent_at
     AND coalesce(ev.data->>'source', '') NOT IN ('bounce', 'complaint'))`;

const FILTERS: Record<RecipientStatus, string> = {
  delivered: 'e.delivered_at IS NOT NULL',
  opened: 'e.opened_at IS NOT NULL',
  clicked: 'e.clicked_at IS NOT NULL',
  bounced: 'e.bounced_at IS NOT NULL',
  complained: 'e.complained_at IS NOT NULL',
  unsubscribed: `e.sent_at IS NOT NULL AND ${UNSUBSCRIBED_AT} IS NOT NULL`,
};

/** A cursor is the last row's contact id: the emails_campaign_contact index pages by it. */
export const parseRecipientCursor = (raw: string): string | null => decodeCursor(raw, 1)?.[0] ?? null;

/**
 * One page of a campaign's recipients (one email each) in contact id order, with when each first
 * was delivered, opened, clicked, bounced, complained or unsubscribed. `limit` null reads them all
 * (the CSV export streams it in pages of its own).
 */
export async function listCampaignRecipients(
  knex: Knex,
  q: { campaignId: string; status?: RecipientStatus; after?: string; limit: number },
): Promise<{ rows: RecipientReportRow[]; cursor: string | null; hasMore: boolean }> {
  const rows: RecipientReportRow[] = await knex('emails as e')
    .where('e.campaign_id', q.campaignId)
    .whereNotNull('e.contact_id')
    .modify((b) => {
      if (q.status) b.whereRaw(FILTERS[q.status]);
      if (q.after !== undefined) b.where('e.contact_id', '>', q.after);
    })
    .orderBy('e.contact_id')
    .limit(q.limit + 1)
    .select(
      'e.id as email_id',
      'e.contact_id',
      'e.to_email',
      'e.status',
      'e.sent_at',
      'e.delivered_at',
      'e.opened_at',
      'e.clicked_at',
      'e.bounced_at',
      'e.complained_at',
      knex.raw(`${UNSUBSCRIBED_AT} AS unsubscribed_at`),
    );
  const hasMore = rows.length > q.limit;
  const page = hasMore ? rows.slice(0, q.limit) : rows;
  return { rows: page, hasMore, cursor: hasMore ? encodeCursor([page[page.length - 1].contact_id]) : null };
}
