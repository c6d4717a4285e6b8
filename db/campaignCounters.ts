import type { Knex } from 'knex';

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
