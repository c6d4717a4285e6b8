import type { Knex } from 'knex';

/**
 * A/B subject tests of campaigns (docs/campaigns.md "A/B subject test"): the test on the campaign,
 * each recipient's test variant in the audience snapshot, the variant an email went out with, and
 * the winner once chosen.
 *
 * Runs outside a transaction because the index on `emails` is built CONCURRENTLY (emails is one of
 * the largest tables of a running install); every step is re-runnable instead.
 */
export const config = { transaction: false };

export async function up(knex: Knex): Promise<void> {
  // `ab_winner` is the index of the winning subject, written once (db/campaignAbTest), so a retried
  // or replayed choice finds it; `ab_winner_due_at` is when it is chosen, fixed when the test group is out.
  await knex.raw('ALTER TABLE campaigns ADD COLUMN IF NOT EXISTS ab_test jsonb');
  await knex.raw('ALTER TABLE campaigns ADD COLUMN IF NOT EXISTS ab_winner smallint');
  await knex.raw('ALTER TABLE campaigns ADD COLUMN IF NOT EXISTS ab_winner_due_at timestamptz');
  // The test group: the subject index each test recipient gets; null for the rest (they get the winner).
  await knex.raw('ALTER TABLE campaign_recipients ADD COLUMN IF NOT EXISTS ab_variant smallint');
  // The variant an email was sent with (test group only), so stats group by it.
  await knex.raw('ALTER TABLE emails ADD COLUMN IF NOT EXISTS ab_variant smallint');
  await knex.raw('CREATE INDEX CONCURRENTLY IF NOT EXISTS emails_campaign_ab_variant ON emails (campaign_id, ab_variant) WHERE ab_variant IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX CONCURRENTLY IF EXISTS emails_campaign_ab_variant');
  await knex.raw('ALTER TABLE emails DROP COLUMN IF EXISTS ab_variant');
  await knex.raw('ALTER TABLE campaign_recipients DROP COLUMN IF EXISTS ab_variant');
  await knex.raw('ALTER TABLE campaigns DROP COLUMN IF EXISTS ab_winner_due_at');
  await knex.raw('ALTER TABLE campaigns DROP COLUMN IF EXISTS ab_winner');
  await knex.raw('ALTER TABLE campaigns DROP COLUMN IF EXISTS ab_test');
}
