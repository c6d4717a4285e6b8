import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Per-project registry of custom fields: the type is fixed by the first non-null value seen.
  await knex.schema.createTable('contact_fields', (t) => {
    t.uuid('project_id').notNullable().references('projects.id').onDelete('CASCADE');
    t.text('key').notNullable();
    t.text('type').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['project_id', 'key']);
  });

  await knex.schema.createTable('templates', (t) => {
    t.uuid('id').primary();
    t.uuid('project_id').notNullable().references('projects.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('description');
    t.text('subject').notNullable();
    t.text('body').notNullable();
    t.text('from').notNullable();
    t.text('from_name');
    t.text('reply_to');
    t.text('type').notNullable().defaultTo('MARKETING');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['project_id', 'created_at']);
  });

  await knex.schema.createTable('emails', (t) => {
    t.uuid('id').primary();
    t.uuid('project_id').notNullable().references('projects.id').onDelete('CASCADE');
    t.text('contact_id').references('contacts.id').onDelete('SET NULL');
    t.uuid('template_id').references('templates.id').onDelete('SET NULL');
    t.uuid('campaign_id');
    t.text('type').notNullable().defaultTo('TRANSACTIONAL');
    t.text('to_email').notNullable();
    t.text('to_name');
    t.text('from_email').notNullable();
    t.text('from_name');
    t.text('reply_to');
    // Source subject/body and the variables they render with (including one-off persistent:false values).
    t.text('subject').notNullable();
    t.text('body').notNullable();
    t.jsonb('variables').notNullable().defaultTo('{}');
    t.jsonb('headers').notNullable().defaultTo('{}');
    t.text('rendered_subject');
    t.text('rendered_body');
    t.text('status').notNullable().defaultTo('QUEUED');
    t.text('transport');
    t.text('provider_message_id');
    t.text('error');
    t.timestamp('sent_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['project_id', 'created_at']);
    t.index(['contact_id']);
    t.index(['provider_message_id']);
  });

  await knex.schema.createTable('email_attachments', (t) => {
    t.increments('id');
    t.uuid('email_id').notNullable().references('emails.id').onDelete('CASCADE');
    t.text('filename').notNullable();
    t.text('content_type');
    t.binary('content').notNullable();
    t.index(['email_id']);
  });

  await knex.schema.createTable('idempotency_keys', (t) => {
    t.uuid('project_id').notNullable().references('projects.id').onDelete('CASCADE');
    t.text('key').notNullable();
    t.text('method').notNullable();
    t.text('path').notNullable();
    t.integer('status_code');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.primary(['project_id', 'key']);
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['idempotency_keys', 'email_attachments', 'emails', 'templates', 'contact_fields']) {
    await knex.schema.dropTableIfExists(table);
  }
}
