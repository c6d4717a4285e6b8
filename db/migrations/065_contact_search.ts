import type { Knex } from 'knex';

/**
 * Contact search (GET /contacts `search`, db/contactReaders.ts): a case-insensitive substring of the
 * email or of any value in `data`. `%term%` cannot use a b-tree, so both sides get trigram (pg_trgm)
 * GIN indexes, which serve ILIKE with a leading wildcard.
 *
 * `contact_search_text(data)` is every scalar value of `data`, nested ones included, one per line:
 * values only, so searching "plan" does not match every contact that merely has a `plan` key. It is
 * IMMUTABLE (jsonb_path_query is), which an expression index requires; the query must call it the
 * same way to use the index.
 */
export async function up(knex: Knex): Promise<void> {
  // A trusted extension since Postgres 13: the database owner may create it; it ships in postgresql-contrib
  // (Debian's postgresql-15 and the postgres:15 image of docker-compose.yml).
  await knex.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm');
  await knex.raw(`
    CREATE OR REPLACE FUNCTION contact_search_text(data jsonb) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT coalesce(string_agg(v #>> '{}', E'\\n'), '')
      FROM jsonb_path_query(data, 'strict $.**') AS v
      WHERE jsonb_typeof(v) NOT IN ('object', 'array')
    $$`);
  await knex.raw('CREATE INDEX IF NOT EXISTS contacts_email_trgm ON contacts USING GIN (email gin_trgm_ops)');
  await knex.raw('CREATE INDEX IF NOT EXISTS contacts_data_values_trgm ON contacts USING GIN (contact_search_text(data) gin_trgm_ops)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS contacts_data_values_trgm');
  await knex.raw('DROP INDEX IF EXISTS contacts_email_trgm');
  await knex.raw('DROP FUNCTION IF EXISTS contact_search_text(jsonb)');
}
