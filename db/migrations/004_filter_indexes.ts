import type { Knex } from 'knex';

/**
 * What db/filters.ts relies on. The safe casts read a jsonb value as one type and yield NULL for
 * anything else, so a value stored with another type than the registry's simply does not match
 * instead of failing the whole query. Each is one SQL expression, which the planner inlines.
 *
 * Indexes: event filters are correlated lookups on (contact_id, name, created_at), which 001
 * already indexes; `subscribed` is in nearly every audience, so it gets one next to project_id.
 * Other data filters scan the project's contacts: their types vary per key and per project.
 */
const FUNCTIONS = [
  String.raw`CREATE OR REPLACE FUNCTION svc_filter_text(v jsonb) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT CASE WHEN jsonb_typeof(v) = 'string' THEN v #>> '{}' END $$`,
  String.raw`CREATE OR REPLACE FUNCTION svc_filter_number(v jsonb) RETURNS numeric
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT CASE WHEN jsonb_typeof(v) = 'number' THEN v::numeric END $$`,
  String.raw`CREATE OR REPLACE FUNCTION svc_filter_boolean(v jsonb) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT CASE WHEN jsonb_typeof(v) = 'boolean' THEN v::boolean END $$`,
  // The spec's two date shapes (db/contacts inferType). The pattern bounds every field, and the
  // day is checked against its month, so that a shaped but impossible value such as 2024-02-30 is
  // NULL rather than a cast error. STABLE, not IMMUTABLE, because text-to-timestamptz casts are:
  // the planner only inlines a function whose body is no less volatile than its declaration.
  String.raw`CREATE OR REPLACE FUNCTION svc_filter_instant(v jsonb) RETURNS timestamptz
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$ SELECT CASE
      WHEN jsonb_typeof(v) IS DISTINCT FROM 'string' THEN NULL
      WHEN (v #>> '{}') !~ '^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{3}){0,1}Z){0,1}$' THEN NULL
      WHEN left(v #>> '{}', 4) = '0000' THEN NULL
      WHEN substr(v #>> '{}', 9, 2)::int > 28
        AND substr(v #>> '{}', 9, 2)::int > extract(day FROM (left(v #>> '{}', 8) || '01')::date + interval '1 month' - interval '1 day') THEN NULL
      WHEN length(v #>> '{}') = 10 THEN ((v #>> '{}') || 'T00:00:00Z')::timestamptz
      ELSE (v #>> '{}')::timestamptz
    END $$`,
];

export async function up(knex: Knex): Promise<void> {
  for (const statement of FUNCTIONS) await knex.raw(statement);
  await knex.schema.alterTable('contacts', (t) => t.index(['project_id', 'subscribed']));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('contacts', (t) => t.dropIndex(['project_id', 'subscribed']));
  for (const fn of ['svc_filter_text', 'svc_filter_number', 'svc_filter_boolean', 'svc_filter_instant']) {
    await knex.raw(`DROP FUNCTION IF EXISTS ${fn}(jsonb)`);
  }
}
