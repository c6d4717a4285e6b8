import type { Knex } from 'knex';

/**
 * The dashboard's language per person (docs/dashboard.md "Languages"): 'en', 'fr' or 'de'; null
 * follows the browser. A person's, not a project's: one dashboard, whatever project is open.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE users ADD COLUMN IF NOT EXISTS locale text');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE users DROP COLUMN IF EXISTS locale');
}
