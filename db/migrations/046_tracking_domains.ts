import type { Knex } from 'knex';

/**
 * A project's own tracking domain (docs/tracking.md "Your own tracking domain"): at most one per
 * project, a CNAME to TRACKING_URL's host plus an ownership TXT, checked like a sender domain
 * (`records` keeps each record's `valid` from the last check). Once VERIFIED, the project's mail
 * carries its pixel and links under it, and old links on it still redirect. The partial index lets
 * the `domain-verification` Schedule find the pending ones.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS tracking_domains (
      project_id uuid PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
      domain text NOT NULL,
      token text NOT NULL,
      status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'VERIFIED')),
      records jsonb NOT NULL,
      last_checked_at timestamptz,
      verified_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
  await knex.raw("CREATE INDEX IF NOT EXISTS tracking_domains_pending ON tracking_domains (created_at) WHERE status = 'PENDING'");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS tracking_domains');
}
