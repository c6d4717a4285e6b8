import type { Knex } from 'knex';

/**
 * The text/plain part. `text` is an optional Liquid source beside `body` on templates, campaigns
 * and emails (null: the part is generated from the rendered HTML); `rendered_text` is the part as
 * sent, stored when the email is rendered like `rendered_body`. Nullable columns: no table rewrite.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE templates ADD COLUMN IF NOT EXISTS text text');
  await knex.raw('ALTER TABLE campaigns ADD COLUMN IF NOT EXISTS text text');
  await knex.raw('ALTER TABLE emails ADD COLUMN IF NOT EXISTS text text, ADD COLUMN IF NOT EXISTS rendered_text text');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE emails DROP COLUMN IF EXISTS rendered_text, DROP COLUMN IF EXISTS text');
  await knex.raw('ALTER TABLE campaigns DROP COLUMN IF EXISTS text');
  await knex.raw('ALTER TABLE templates DROP COLUMN IF EXISTS text');
}
