import type { Knex } from 'knex';

/**
 * First-party open and click tracking (docs/tracking.md).
 * - `projects.tracking`, `campaigns.tracking`: the settings per email type and a campaign's own
 *   choice (jsonb; null: the defaults, or the project's settings for the campaign's type).
 * - `emails.track_opens`, `emails.track_clicks`: a /v1/send override until the email is rendered,
 *   then what was decided for it (provider open/click events of a tracked email are ignored);
 *   `emails.links`: the original URL of each rewritten link, in token index order, so a click token
 *   (email id + index) can only lead where the email's own links led.
 * - `email_engagements`: every open and click received, people's and machines' alike; the counters
 *   and `email.opened`/`email.clicked` events come from the human ones. It holds no address, no IP
 *   and no user agent.
 * Nullable columns: no table rewrite.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE projects ADD COLUMN IF NOT EXISTS tracking jsonb');
  await knex.raw('ALTER TABLE campaigns ADD COLUMN IF NOT EXISTS tracking jsonb');
  await knex.raw(
    'ALTER TABLE emails ADD COLUMN IF NOT EXISTS track_opens boolean, ADD COLUMN IF NOT EXISTS track_clicks boolean, ADD COLUMN IF NOT EXISTS links text[]',
  );
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS email_engagements (
      id uuid PRIMARY KEY,
      email_id uuid NOT NULL REFERENCES emails(id) ON DELETE CASCADE,
      project_id uuid NOT NULL,
      campaign_id uuid,
      kind text NOT NULL CHECK (kind IN ('open', 'click')),
      link_index integer,
      machine boolean NOT NULL,
      at timestamptz NOT NULL
    )`);
  await knex.raw('CREATE INDEX IF NOT EXISTS email_engagements_email ON email_engagements (email_id)');
  // The campaign's per-link report and machine counts read by campaign.
  await knex.raw('CREATE INDEX IF NOT EXISTS email_engagements_campaign ON email_engagements (campaign_id, kind) WHERE campaign_id IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS email_engagements');
  await knex.raw('ALTER TABLE emails DROP COLUMN IF EXISTS links, DROP COLUMN IF EXISTS track_clicks, DROP COLUMN IF EXISTS track_opens');
  await knex.raw('ALTER TABLE campaigns DROP COLUMN IF EXISTS tracking');
  await knex.raw('ALTER TABLE projects DROP COLUMN IF EXISTS tracking');
}
