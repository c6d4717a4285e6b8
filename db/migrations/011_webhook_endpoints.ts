import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_endpoints', (t) => {
    t.uuid('id').primary();
    t.uuid('project_id').notNullable().references('projects.id').onDelete('CASCADE');
    t.text('url').notNullable();
    t.specificType('events', 'text[]').notNullable();
    t.text('description');
    t.boolean('enabled').notNullable().defaultTo(true);
    t.text('secret').notNullable();
    // After a rotation the previous secret keeps signing alongside the new one until it expires.
    t.text('previous_secret');
    t.timestamp('previous_secret_expires_at', { useTz: true });
    // Set by the first failed attempt after a success; an endpoint failing long enough is disabled.
    t.timestamp('failing_since', { useTz: true });
    t.timestamp('disabled_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['project_id', 'created_at']);
  });

  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('endpoint_id').notNullable().references('webhook_endpoints.id').onDelete('CASCADE');
    // What the delivery is of: an event id, or a key naming an event that has no row (campaign.sent:<id>).
    t.text('source_key').notNullable();
    t.uuid('event_id');
    t.text('type').notNullable();
    // The exact bytes sent (and signed) on every attempt.
    t.text('body').notNullable();
    t.text('status').notNullable().defaultTo('PENDING');
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('last_status_code');
    t.text('last_error');
    t.timestamp('next_attempt_at', { useTz: true }).defaultTo(knex.fn.now());
    t.timestamp('delivered_at', { useTz: true });
    // Start of the retry window: creation, or the last manual retry.
    t.timestamp('window_started_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['endpoint_id', 'source_key']);
    t.index(['endpoint_id', 'created_at', 'id']);
  });
  await knex.raw(`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_status_check CHECK (status IN ('PENDING', 'DELIVERED', 'FAILED'))`);
  // The delivery workflow's queue: due work of one endpoint, in order.
  await knex.raw(`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (endpoint_id, next_attempt_at, id) WHERE status = 'PENDING'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('webhook_deliveries');
  await knex.schema.dropTableIfExists('webhook_endpoints');
}
