import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('segments', (t) => {
    t.uuid('id').primary();
    t.uuid('project_id').notNullable().references('projects.id').onDelete('CASCADE');
    t.text('name').notNullable();
    // Names the segment's entry/exit events; fixed at creation so renaming never breaks workflow triggers.
    t.text('slug').notNullable();
    t.text('description');
    t.text('type').notNullable().defaultTo('DYNAMIC');
    t.jsonb('condition');
    t.boolean('track_membership').notNullable().defaultTo(false);
    t.integer('member_count').notNullable().defaultTo(0);
    t.timestamp('counted_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['project_id', 'slug']);
    t.index(['project_id', 'created_at']);
  });

  // Static segments: the managed list. Tracked dynamic segments: the membership of the last compute,
  // which the next compute diffs against the live match.
  await knex.schema.createTable('segment_members', (t) => {
    t.uuid('segment_id').notNullable().references('segments.id').onDelete('CASCADE');
    t.text('contact_id').notNullable().references('contacts.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['segment_id', 'contact_id']);
    t.index(['contact_id']);
  });

  // One row per compute run: its keyset cursor and counters move in the same transaction as each
  // batch's membership writes, so a retried activity resumes exactly where the last commit left off.
  await knex.schema.createTable('segment_computes', (t) => {
    t.text('id').primary();
    t.uuid('segment_id').notNullable().references('segments.id').onDelete('CASCADE');
    t.text('status').notNullable().defaultTo('RUNNING');
    t.text('cursor');
    t.integer('entered').notNullable().defaultTo(0);
    t.integer('exited').notNullable().defaultTo(0);
    t.integer('member_count');
    t.timestamp('started_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('finished_at', { useTz: true });
    t.index(['segment_id', 'started_at']);
  });

  // Compute walks a project's contacts by id in keyset batches.
  await knex.raw('CREATE INDEX IF NOT EXISTS contacts_project_id_id ON contacts (project_id, id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS contacts_project_id_id');
  for (const table of ['segment_computes', 'segment_members', 'segments']) await knex.schema.dropTableIfExists(table);
}
