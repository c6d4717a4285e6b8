import type { Knex } from 'knex';

/**
 * The consent record (docs/privacy.md): one row per change of a contact's `subscribed` flag or of a
 * topic state, with where it came from, written in the same transaction (or statement) as the change
 * by db/contacts and db/topics. Rows go with their contact (erasure); a topic's id and slug are copied,
 * not referenced, so the record outlives a deleted topic. The id is an identity so rows of one
 * statement keep their order.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS consent_records (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      contact_id text NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
      scope text NOT NULL CHECK (scope IN ('global', 'topic')),
      topic_id uuid,
      topic_slug text,
      value boolean NOT NULL,
      source text NOT NULL,
      at timestamptz NOT NULL DEFAULT now(),
      ip text,
      user_agent text,
      CHECK ((scope = 'topic') = (topic_id IS NOT NULL))
    )`);
  await knex.raw('CREATE INDEX IF NOT EXISTS consent_records_contact ON consent_records (contact_id, id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS consent_records');
}
