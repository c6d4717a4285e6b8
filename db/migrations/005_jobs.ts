import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Contact imports and bulk operations (docs/api.md, "Import and bulk jobs"); the bulkJob workflow moves them.
  await knex.schema.createTable('jobs', (t) => {
    t.uuid('id').primary();
    t.uuid('project_id').notNullable().references('projects.id').onDelete('CASCADE');
    t.text('type').notNullable();
    t.text('status').notNullable().defaultTo('QUEUED');
    t.integer('total').notNullable().defaultTo(0);
    t.integer('processed').notNullable().defaultTo(0);
    t.integer('succeeded').notNullable().defaultTo(0);
    t.integer('failed').notNullable().defaultTo(0);
    t.jsonb('errors').notNullable().defaultTo('[]');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('started_at', { useTz: true });
    t.timestamp('finished_at', { useTz: true });
    t.index(['project_id', 'created_at']);
  });
  await knex.raw(`ALTER TABLE jobs ADD CONSTRAINT jobs_type_check CHECK (type IN ('IMPORT', 'BULK_SUBSCRIBE', 'BULK_UNSUBSCRIBE', 'BULK_DELETE'))`);
  await knex.raw(`ALTER TABLE jobs ADD CONSTRAINT jobs_status_check CHECK (status IN ('QUEUED', 'RUNNING', 'COMPLETED', 'FAILED'))`);

  // A job's input, one row per CSV record or contact id, staged at upload time. `done` flips in the
  // transaction that applies the row, so a retried or re-run batch never applies a row twice.
  await knex.schema.createTable('job_rows', (t) => {
    t.uuid('job_id').notNullable().references('jobs.id').onDelete('CASCADE');
    t.integer('row_number').notNullable();
    t.jsonb('payload').notNullable();
    t.boolean('done').notNullable().defaultTo(false);
    t.primary(['job_id', 'row_number']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('job_rows');
  await knex.schema.dropTableIfExists('jobs');
}
