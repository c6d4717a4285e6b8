import type { Knex } from 'knex';

/**
 * Claims of caller-derived event ids (lib/ids deterministicUuid): what keeps a retried writer from
 * writing an event twice once `events` is partitioned by month (063). A partitioned table cannot
 * hold a unique index on `id` alone (every unique index must contain the partition key), so
 * `ON CONFLICT (id)` on `events` no longer exists: a writer with a derived id first inserts the id
 * here and writes the event only when the claim is new (db/eventKeys.ts). Events with a random id
 * (`/v1/track`, the hot path) never come here. Narrow rows; pruned with the events by retention.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS event_keys (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
  // Retention removes a project's claims older than its events window.
  await knex.raw('CREATE INDEX IF NOT EXISTS event_keys_project_created ON event_keys (project_id, created_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS event_keys');
}
