import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users', (t) => {
    t.uuid('id').primary();
    t.text('email').notNullable().unique();
    t.text('password_hash').notNullable();
    t.boolean('email_verified').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('projects', (t) => {
    t.uuid('id').primary();
    t.text('name').notNullable();
    // Keys are stored as sha256 hex digests only; the last four characters are kept for listings.
    t.text('public_key_hash').notNullable().unique();
    t.text('secret_key_hash').notNullable().unique();
    t.text('public_key_last4').notNullable();
    t.text('secret_key_last4').notNullable();
    t.boolean('disabled').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('project_members', (t) => {
    t.uuid('project_id').notNullable().references('projects.id').onDelete('CASCADE');
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('role').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['project_id', 'user_id']);
    t.index(['user_id']);
  });

  await knex.schema.createTable('contacts', (t) => {
    t.text('id').primary();
    t.uuid('project_id').notNullable().references('projects.id').onDelete('CASCADE');
    t.text('email').notNullable();
    t.boolean('subscribed').notNullable().defaultTo(true);
    t.jsonb('data').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['project_id', 'email']);
    // Keyset pagination walks (created_at, id) per project.
    t.index(['project_id', 'created_at', 'id']);
  });
  await knex.raw('CREATE INDEX contacts_data_gin ON contacts USING GIN (data jsonb_path_ops)');

  await knex.schema.createTable('events', (t) => {
    t.uuid('id').primary();
    t.uuid('project_id').notNullable().references('projects.id').onDelete('CASCADE');
    t.text('contact_id').references('contacts.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.jsonb('data').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['project_id', 'name', 'created_at']);
    t.index(['contact_id', 'name', 'created_at']);
  });

  await knex.schema.createTable('domains', (t) => {
    t.uuid('id').primary();
    t.uuid('project_id').notNullable().references('projects.id').onDelete('CASCADE');
    t.text('domain').notNullable();
    t.text('token').notNullable();
    t.text('status').notNullable().defaultTo('PENDING');
    t.jsonb('records').notNullable();
    t.timestamp('last_checked_at', { useTz: true });
    t.timestamp('verified_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['project_id', 'domain']);
    t.index(['status']);
  });

  // Fixed one-minute windows, one row per project and window, shared by every API replica.
  await knex.schema.createTable('rate_limits', (t) => {
    t.uuid('project_id').notNullable();
    t.timestamp('window_start', { useTz: true }).notNullable();
    t.integer('count').notNullable();
    t.primary(['project_id', 'window_start']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['rate_limits', 'domains', 'events', 'contacts', 'project_members', 'projects', 'users']) {
    await knex.schema.dropTableIfExists(table);
  }
}
