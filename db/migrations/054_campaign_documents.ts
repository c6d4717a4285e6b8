import type { Knex } from 'knex';

/**
 * A campaign's own content may be a block document (issue 40), like a template's: `editor`,
 * `document` (the source) and `compiled_text` (the text part compiled with it). `body` keeps the HTML
 * compiled from the document when the campaign is saved, so every sender (the recipients' render,
 * tests, the archive) reads `body` as before and MJML never runs per recipient.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE campaigns
      ADD COLUMN IF NOT EXISTS editor text NOT NULL DEFAULT 'html' CHECK (editor IN ('html', 'blocks')),
      ADD COLUMN IF NOT EXISTS document jsonb,
      ADD COLUMN IF NOT EXISTS compiled_text text`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE campaigns DROP COLUMN IF EXISTS editor, DROP COLUMN IF EXISTS document, DROP COLUMN IF EXISTS compiled_text');
}
