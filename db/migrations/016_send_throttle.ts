import type { Knex } from 'knex';

/** The per-project send throttle (docs/providers.md "Per-project send throttle"). */
export async function up(knex: Knex): Promise<void> {
  // A project's own deliveries per second; null: the workers' SEND_RATE_PER_SECOND.
  await knex.schema.alterTable('projects', (t) => {
    t.double('send_rate_per_second');
  });
  await knex.raw('ALTER TABLE projects ADD CONSTRAINT projects_send_rate_positive CHECK (send_rate_per_second > 0)');
  // One row per project: when its next delivery slot is free (GCRA). Every worker reserves slots by
  // moving `next_free` forward in one UPDATE, so the rate holds across workers and paths.
  // `default_rate_per_second` is the workers' SEND_RATE_PER_SECOND as of the last reservation: the
  // API reads it to show the pacing, as only the workers' configuration decides it.
  await knex.schema.createTable('send_throttle', (t) => {
    t.uuid('project_id').primary().references('projects.id').onDelete('CASCADE');
    t.timestamp('next_free', { useTz: true }).notNullable();
    t.double('default_rate_per_second').notNullable();
  });
  // A slot reserved for one email whose wait is carried by a Temporal retry: the retry finds its
  // slot here instead of queueing again at the back.
  await knex.schema.createTable('send_throttle_holds', (t) => {
    t.uuid('email_id').primary();
    t.uuid('project_id').notNullable().references('projects.id').onDelete('CASCADE');
    t.timestamp('starts_at', { useTz: true }).notNullable();
    t.index(['project_id', 'starts_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('send_throttle_holds');
  await knex.schema.dropTable('send_throttle');
  await knex.schema.alterTable('projects', (t) => t.dropColumn('send_rate_per_second'));
}
