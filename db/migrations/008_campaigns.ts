import type { Knex } from 'knex';

/**
 * Campaigns (spec "Campaign"; docs/campaigns.md) and provider events.
 *
 * Runs outside a transaction because the index on `emails` is built CONCURRENTLY (emails is one of
 * the largest tables of a running install); every step is written to be re-runnable instead.
 */
export const config = { transaction: false };

export async function up(knex: Knex): Promise<void> {
  if (!(await knex.schema.hasTable('campaigns'))) {
    await knex.schema.createTable('campaigns', (t) => {
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
      t.text('status').notNullable().defaultTo('DRAFT');
      t.text('audience_type').notNullable();
      t.jsonb('audience_condition');
      // No foreign key: a segment in use by an active campaign cannot be deleted (db/segments), and
      // a finished campaign keeps naming the segment it went to after that segment is gone.
      t.uuid('segment_id');
      t.timestamp('scheduled_for', { useTz: true });
      // Fixed when sending starts (the audience snapshot below); the others move with each email.
      t.integer('total_recipients').notNullable().defaultTo(0);
      t.integer('sent_count').notNullable().defaultTo(0);
      t.integer('delivered_count').notNullable().defaultTo(0);
      t.integer('opened_count').notNullable().defaultTo(0);
      t.integer('clicked_count').notNullable().defaultTo(0);
      t.integer('bounced_count').notNullable().defaultTo(0);
      t.integer('complained_count').notNullable().defaultTo(0);
      t.integer('failed_count').notNullable().defaultTo(0);
      t.timestamp('started_at', { useTz: true });
      t.timestamp('sent_at', { useTz: true });
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.index(['project_id', 'created_at']);
      t.index(['segment_id']);
    });
    await knex.raw(`ALTER TABLE campaigns ADD CONSTRAINT campaigns_status_check CHECK (status IN ('DRAFT', 'SCHEDULED', 'SENDING', 'SENT', 'CANCELLED'))`);
    await knex.raw(`ALTER TABLE campaigns ADD CONSTRAINT campaigns_type_check CHECK (type IN ('TRANSACTIONAL', 'MARKETING', 'HEADLESS'))`);
    await knex.raw(`ALTER TABLE campaigns ADD CONSTRAINT campaigns_audience_check CHECK (audience_type IN ('ALL', 'SEGMENT', 'FILTERED'))`);
  }

  // The audience as it was when sending started: it fixes totalRecipients and is what the batches
  // page through by contact id, so contacts created or changed mid-send neither join nor shift it.
  if (!(await knex.schema.hasTable('campaign_recipients'))) {
    await knex.schema.createTable('campaign_recipients', (t) => {
      t.uuid('campaign_id').notNullable().references('campaigns.id').onDelete('CASCADE');
      t.text('contact_id').notNullable();
      t.primary(['campaign_id', 'contact_id']);
    });
  }

  // SendGrid event ids already applied: the provider retries deliveries of the same event.
  if (!(await knex.schema.hasTable('provider_events'))) {
    await knex.schema.createTable('provider_events', (t) => {
      t.text('id').primary();
      t.timestamp('received_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.index(['received_at']);
    });
  }

  // When each provider event first happened to an email: counters move once per email, whatever
  // order or how often the provider reports it.
  for (const column of ['delivered_at', 'opened_at', 'clicked_at', 'bounced_at', 'complained_at']) {
    await knex.raw(`ALTER TABLE emails ADD COLUMN IF NOT EXISTS ${column} timestamptz`);
  }
  // One email per (campaign, contact): the row is the record that a recipient was handed over.
  await knex.raw('CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS emails_campaign_contact ON emails (campaign_id, contact_id) WHERE campaign_id IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX CONCURRENTLY IF EXISTS emails_campaign_contact');
  for (const column of ['delivered_at', 'opened_at', 'clicked_at', 'bounced_at', 'complained_at']) {
    await knex.raw(`ALTER TABLE emails DROP COLUMN IF EXISTS ${column}`);
  }
  for (const table of ['provider_events', 'campaign_recipients', 'campaigns']) await knex.schema.dropTableIfExists(table);
}
