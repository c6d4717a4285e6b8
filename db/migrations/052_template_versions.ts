import type { Knex } from 'knex';

/**
 * Block templates, versions and languages (docs/templates.md). The templates row keeps the
 * PUBLISHED content, compiled, in the columns every sender already reads (`subject`, `body`,
 * `text`), plus: `editor` and `document` (the block source of a blocks template), `compiled_text`
 * (the text part compiled from the document, used when `text` is null), `variants` (per locale, each
 * compiled the same way), `published_version`, and the unpublished `draft` (the same content shape,
 * compiled when saved). `template_versions` holds every published content; existing templates get
 * their current content as version 1.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE templates
      ADD COLUMN IF NOT EXISTS editor text NOT NULL DEFAULT 'html' CHECK (editor IN ('html', 'blocks')),
      ADD COLUMN IF NOT EXISTS document jsonb,
      ADD COLUMN IF NOT EXISTS compiled_text text,
      ADD COLUMN IF NOT EXISTS variants jsonb,
      ADD COLUMN IF NOT EXISTS published_version integer NOT NULL DEFAULT 1,
      ADD COLUMN IF NOT EXISTS draft jsonb,
      ADD COLUMN IF NOT EXISTS draft_updated_at timestamptz`);
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS template_versions (
      template_id uuid NOT NULL REFERENCES templates(id) ON DELETE CASCADE,
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      number integer NOT NULL,
      content jsonb NOT NULL,
      created_by uuid REFERENCES users(id) ON DELETE SET NULL,
      note text,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (template_id, number)
    )`);
  await knex.raw(`
    INSERT INTO template_versions (template_id, project_id, number, content, created_at)
    SELECT id, project_id, 1,
      jsonb_build_object('subject', subject, 'editor', 'html', 'body', body, 'document', NULL, 'text', text, 'compiledText', NULL, 'variants', NULL),
      updated_at
    FROM templates
    ON CONFLICT DO NOTHING`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS template_versions');
  await knex.raw(`
    ALTER TABLE templates
      DROP COLUMN IF EXISTS editor, DROP COLUMN IF EXISTS document, DROP COLUMN IF EXISTS compiled_text,
      DROP COLUMN IF EXISTS variants, DROP COLUMN IF EXISTS published_version, DROP COLUMN IF EXISTS draft,
      DROP COLUMN IF EXISTS draft_updated_at`);
}
