import type { Knex } from 'knex';

/**
 * The history of segment membership (a contact's timeline, GET /contacts/:id/timeline): one row per
 * contact entering or leaving a static segment's list or a tracked dynamic segment's snapshot,
 * written in the same transaction as the change by db/segments.ts. The segment's name is copied, not
 * only referenced, so the history outlives a deleted segment. Rows go with their contact (erasure)
 * and their project. A dynamic segment that does not track membership stores none, so it has none.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS segment_membership_changes (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      contact_id text NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
      segment_id uuid NOT NULL,
      segment_name text NOT NULL,
      change text NOT NULL CHECK (change IN ('entry', 'exit')),
      source text NOT NULL CHECK (source IN ('list', 'compute')),
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
  // One contact's history, newest first (the timeline's keyset).
  await knex.raw('CREATE INDEX IF NOT EXISTS segment_membership_changes_contact_created ON segment_membership_changes (contact_id, created_at DESC, id DESC)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS segment_membership_changes');
}
