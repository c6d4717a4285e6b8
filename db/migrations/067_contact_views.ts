import type { Knex } from 'knex';

/**
 * Saved views of the contacts list (docs/dashboard.md "Contacts"): a filter tree, a search and the
 * columns shown, shared by everyone in the project. The filter is kept as given, not compiled: a
 * field deleted later makes the view's filter stop matching, as a segment's does (db/filters).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS contact_views (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      name text NOT NULL,
      filter jsonb,
      search text,
      columns jsonb NOT NULL DEFAULT '[]',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (project_id, name)
    )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS contact_views');
}
