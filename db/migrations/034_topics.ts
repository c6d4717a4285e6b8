import type { Knex } from 'knex';

/**
 * Topics (docs/api.md "Topics"): what a project's marketing mail is about, each with its own
 * opt-in under the contact's global `subscribed` switch. `contact_topics` holds only the states a
 * contact (or a caller) chose; a contact without a row has the topic's default. Campaigns and
 * emails may name the topic they belong to: their audience is its subscribers, and their
 * unsubscribe links leave that topic only.
 *
 * Deleting a topic is refused while an unfinished campaign or a workflow step names it
 * (db/topics.ts topicUsage): such a campaign would otherwise go to everyone. A finished campaign
 * just forgets it (SET NULL). `emails.topic_id` has no foreign key: the big table stays free of a
 * lookup per topic delete, and a link of a topic that no longer exists unsubscribes from everything.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS topics (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      name text NOT NULL,
      slug text NOT NULL,
      description text,
      default_subscribed boolean NOT NULL DEFAULT false,
      public boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (project_id, slug)
    )`);
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS contact_topics (
      contact_id text NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
      topic_id uuid NOT NULL REFERENCES topics(id) ON DELETE CASCADE,
      subscribed boolean NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (contact_id, topic_id)
    )`);
  // Audiences ask "who chose this topic" set-based.
  await knex.raw('CREATE INDEX IF NOT EXISTS contact_topics_topic ON contact_topics (topic_id, subscribed, contact_id)');
  await knex.raw('ALTER TABLE campaigns ADD COLUMN IF NOT EXISTS topic_id uuid REFERENCES topics(id) ON DELETE SET NULL');
  await knex.raw('ALTER TABLE emails ADD COLUMN IF NOT EXISTS topic_id uuid');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE emails DROP COLUMN IF EXISTS topic_id');
  await knex.raw('ALTER TABLE campaigns DROP COLUMN IF EXISTS topic_id');
  await knex.raw('DROP TABLE IF EXISTS contact_topics');
  await knex.raw('DROP TABLE IF EXISTS topics');
}
