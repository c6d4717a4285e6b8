import type { Knex } from 'knex';

/**
 * Growth (docs/campaigns.md "Public archive", "RSS-to-email", "View in browser"):
 * - `projects.slug`: the project's public name in archive URLs (`/archive/<slug>`), unique, derived
 *   from the name at creation and fixed afterwards (old links keep working after a rename).
 *   Existing projects get theirs here: the name's slug, with part of the id after it when two share one.
 * - `campaigns.archive`: the campaign is listed in its project's public archive once SENT.
 * - `campaigns.kind` and `campaigns.rss`: an RSS campaign (kind RSS) is a recurring definition, never
 *   sent itself; each run that finds new items sends a child campaign (`parent_id`) through the
 *   ordinary campaign send. `rss_last_item_at`: the newest item date already sent.
 * - `campaign_runs`: one row per run of an RSS campaign, with the items it found.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE projects ADD COLUMN IF NOT EXISTS slug text');
  await knex.raw(`
    WITH base AS (
      SELECT id, coalesce(nullif(trim(both '-' from regexp_replace(lower(name), '[^a-z0-9]+', '-', 'g')), ''), 'project') AS s,
             row_number() OVER (PARTITION BY coalesce(nullif(trim(both '-' from regexp_replace(lower(name), '[^a-z0-9]+', '-', 'g')), ''), 'project') ORDER BY created_at, id) AS n
        FROM projects WHERE slug IS NULL)
    UPDATE projects p SET slug = CASE WHEN base.n = 1 THEN left(base.s, 60) ELSE left(base.s, 60) || '-' || left(p.id::text, 8) END
      FROM base WHERE p.id = base.id`);
  await knex.raw('CREATE UNIQUE INDEX IF NOT EXISTS projects_slug ON projects (slug)');

  await knex.raw('ALTER TABLE campaigns ADD COLUMN IF NOT EXISTS archive boolean NOT NULL DEFAULT false');
  await knex.raw(`ALTER TABLE campaigns ADD COLUMN IF NOT EXISTS kind text NOT NULL DEFAULT 'REGULAR' CHECK (kind IN ('REGULAR', 'RSS'))`);
  await knex.raw('ALTER TABLE campaigns ADD COLUMN IF NOT EXISTS rss jsonb');
  await knex.raw('ALTER TABLE campaigns ADD COLUMN IF NOT EXISTS rss_last_item_at timestamptz');
  // The feed items of the run a child campaign sends: the template's `items`.
  await knex.raw('ALTER TABLE campaigns ADD COLUMN IF NOT EXISTS rss_items jsonb');
  await knex.raw('ALTER TABLE campaigns ADD COLUMN IF NOT EXISTS parent_id uuid REFERENCES campaigns(id) ON DELETE SET NULL');
  // The archive lists a project's public SENT campaigns, newest first.
  await knex.raw("CREATE INDEX IF NOT EXISTS campaigns_archive ON campaigns (project_id, sent_at DESC) WHERE archive AND status = 'SENT'");
  await knex.raw('CREATE INDEX IF NOT EXISTS campaigns_parent ON campaigns (parent_id) WHERE parent_id IS NOT NULL');

  await knex.raw(`
    CREATE TABLE IF NOT EXISTS campaign_runs (
      id uuid PRIMARY KEY,
      campaign_id uuid NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      status text NOT NULL CHECK (status IN ('SENT', 'NOTHING_NEW', 'FAILED')),
      items jsonb NOT NULL DEFAULT '[]'::jsonb,
      item_count integer NOT NULL DEFAULT 0,
      sent_campaign_id uuid REFERENCES campaigns(id) ON DELETE SET NULL,
      error text,
      started_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz
    )`);
  await knex.raw('CREATE INDEX IF NOT EXISTS campaign_runs_campaign ON campaign_runs (campaign_id, started_at DESC)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS campaign_runs');
  for (const column of ['parent_id', 'rss_items', 'rss_last_item_at', 'rss', 'kind', 'archive'])
    await knex.raw(`ALTER TABLE campaigns DROP COLUMN IF EXISTS ${column}`);
  await knex.raw('ALTER TABLE projects DROP COLUMN IF EXISTS slug');
}
