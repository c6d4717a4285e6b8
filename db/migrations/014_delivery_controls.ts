import type { Knex } from 'knex';

/** Delivery controls (docs/api.md "Sending policy"): a project's policy, the send ledger the frequency cap counts, why an execution waits. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('projects', (t) => {
    t.text('timezone').notNullable().defaultTo('UTC');
    t.jsonb('quiet_hours');
    t.jsonb('frequency_cap');
  });

  // One row per MARKETING email claimed for a contact, keyed by the email id so a retried claim finds
  // its row. The frequency cap counts a contact's rows in its window under a per-contact lock.
  await knex.schema.createTable('marketing_sends', (t) => {
    t.uuid('email_id').primary();
    t.uuid('project_id').notNullable().references('projects.id').onDelete('CASCADE');
    t.text('contact_id').notNullable().references('contacts.id').onDelete('CASCADE');
    t.timestamp('sent_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['contact_id', 'sent_at']);
  });

  await knex.schema.alterTable('workflow_executions', (t) => {
    t.text('waiting_reason');
  });

  // A campaign sent at a local date-time in each recipient's zone, and its capped recipients' count.
  await knex.schema.alterTable('campaigns', (t) => {
    t.text('local_schedule');
    t.integer('capped_count').notNullable().defaultTo(0);
    t.integer('send_rate_per_minute');
  });
  // Recipients set aside by a batch: held until `due_at` (quiet hours, their local time), or capped for good.
  await knex.schema.createTable('campaign_deferrals', (t) => {
    t.uuid('campaign_id').notNullable().references('campaigns.id').onDelete('CASCADE');
    t.text('contact_id').notNullable();
    t.timestamp('due_at', { useTz: true }).notNullable();
    t.primary(['campaign_id', 'contact_id']);
    t.index(['campaign_id', 'due_at']);
  });
  await knex.schema.createTable('campaign_capped', (t) => {
    t.uuid('campaign_id').notNullable().references('campaigns.id').onDelete('CASCADE');
    t.text('contact_id').notNullable();
    t.primary(['campaign_id', 'contact_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('campaign_capped');
  await knex.schema.dropTable('campaign_deferrals');
  await knex.schema.alterTable('campaigns', (t) => {
    t.dropColumn('local_schedule');
    t.dropColumn('capped_count');
    t.dropColumn('send_rate_per_minute');
  });
  await knex.schema.alterTable('workflow_executions', (t) => t.dropColumn('waiting_reason'));
  await knex.schema.dropTable('marketing_sends');
  await knex.schema.alterTable('projects', (t) => {
    t.dropColumn('timezone');
    t.dropColumn('quiet_hours');
    t.dropColumn('frequency_cap');
  });
}
