import type { Knex } from 'knex';

/**
 * Uploaded images in Postgres, so every API replica serves what any of them received (they used to
 * sit on one replica's disk). At most 5 MB each (api/schemas/uploads MAX_IMAGE_BYTES).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('uploads', (t) => {
    t.uuid('project_id').notNullable().references('projects.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.integer('size').notNullable();
    t.binary('bytes').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['project_id', 'name']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('uploads');
}
