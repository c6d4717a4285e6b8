import type { Knex } from 'knex';

/**
 * Signup forms (docs/forms.md): a hosted page at /f/:id and an embeddable snippet posting to it.
 * `fields` is the form's own list (the email field is implicit and first); `topics` holds topic
 * slugs (fixed at a topic's creation), resolved at each submission so a deleted topic just drops
 * out; `double_opt_in` null follows the project's settings.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS forms (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      name text NOT NULL,
      fields jsonb NOT NULL DEFAULT '[]',
      topics text[] NOT NULL DEFAULT '{}',
      double_opt_in boolean,
      success_message text,
      redirect_url text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
  await knex.raw('CREATE INDEX IF NOT EXISTS forms_project ON forms (project_id, created_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS forms');
}
