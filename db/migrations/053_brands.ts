import type { Knex } from 'knex';

/** A project's brand kit (GET/PUT /brand, lib/brand.ts); no row: the defaults. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS brands (
      project_id uuid PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
      settings jsonb NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS brands');
}
