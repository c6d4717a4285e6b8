import type { Knex } from 'knex';
import { campaignEngagementTotals, type EngagementTotals } from './tracking';
import { sendRates } from '../lib/math';
import { pendingCount } from './campaignDeferrals';
import { campaignPacing, type Pacing } from './sendThrottle';
import { variantStats, type VariantStats } from './campaignAbTest';
import type { CampaignRow } from './campaigns';

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
