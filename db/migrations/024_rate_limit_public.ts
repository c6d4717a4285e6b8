import type { Knex } from 'knex';

/**
 * The public key's own count in each rate-limit window (db/projects findProjectByKeyCounting):
 * it may use only RATE_LIMIT_PUBLIC_SHARE of the project's limit, so a page visitor holding the
 * `pk_` cannot spend the minute the secret key needs. A constant default: no table rewrite.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE rate_limits ADD COLUMN IF NOT EXISTS public_count integer NOT NULL DEFAULT 0');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE rate_limits DROP COLUMN IF EXISTS public_count');
}
