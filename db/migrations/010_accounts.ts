import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Email verification and password reset links: only the sha256 of a token is stored.
  await knex.schema.createTable('user_tokens', (t) => {
    t.uuid('id').primary();
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('purpose').notNullable();
    t.text('token_hash').notNullable().unique();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['user_id', 'purpose', 'created_at']);
  });
  await knex.raw(`ALTER TABLE user_tokens ADD CONSTRAINT user_tokens_purpose_check CHECK (purpose IN ('VERIFY_EMAIL', 'RESET_PASSWORD'))`);

  await knex.raw(`ALTER TABLE project_members ADD CONSTRAINT project_members_role_check CHECK (role IN ('OWNER', 'ADMIN', 'MEMBER'))`);

  // An invite for an address with no verified account yet; it becomes a membership once an account proves it owns the address.
  await knex.schema.createTable('project_invites', (t) => {
    t.uuid('id').primary();
    t.uuid('project_id').notNullable().references('projects.id').onDelete('CASCADE');
    t.text('email').notNullable();
    t.text('role').notNullable();
    t.uuid('invited_by').references('users.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['project_id', 'email']);
    t.index(['email']);
  });
  await knex.raw(`ALTER TABLE project_invites ADD CONSTRAINT project_invites_role_check CHECK (role IN ('OWNER', 'ADMIN', 'MEMBER'))`);

  await knex.schema.createTable('project_suspensions', (t) => {
    t.uuid('id').primary();
    t.uuid('project_id').notNullable().references('projects.id').onDelete('CASCADE');
    t.text('reason').notNullable();
    t.integer('sent').notNullable();
    t.integer('bounced').notNullable();
    t.integer('complained').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['project_id', 'created_at']);
  });

  await knex.schema.createTable('billing_limits', (t) => {
    t.uuid('project_id').primary().references('projects.id').onDelete('CASCADE');
    t.integer('emails');
    t.integer('contacts');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  // Emails of the current period that a project reset deleted still count towards the period's consumption.
  await knex.schema.createTable('billing_usage_carry', (t) => {
    t.uuid('project_id').notNullable().references('projects.id').onDelete('CASCADE');
    t.timestamp('period_start', { useTz: true }).notNullable();
    t.integer('emails').notNullable().defaultTo(0);
    t.primary(['project_id', 'period_start']);
  });

  await knex.schema.createTable('billing_accounts', (t) => {
    t.uuid('project_id').primary().references('projects.id').onDelete('CASCADE');
    t.text('customer_id').notNullable().unique();
    t.text('subscription_id');
    t.text('subscription_status');
    t.timestamp('current_period_end', { useTz: true });
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('billing_invoices', (t) => {
    t.text('id').primary();
    t.uuid('project_id').notNullable().references('projects.id').onDelete('CASCADE');
    t.text('number');
    t.text('status');
    t.bigInteger('amount_due');
    t.bigInteger('amount_paid');
    t.text('currency');
    t.text('hosted_invoice_url');
    t.text('invoice_pdf');
    t.timestamp('period_start', { useTz: true });
    t.timestamp('period_end', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['project_id', 'created_at']);
  });

  // Stripe delivers an event at least once; its id makes a redelivery a no-op.
  await knex.schema.createTable('billing_events', (t) => {
    t.text('id').primary();
    t.text('type').notNullable();
    t.timestamp('received_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  // System emails (verification, password reset, invites) belong to no project.
  await knex.raw('ALTER TABLE emails ALTER COLUMN project_id DROP NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex('emails').whereNull('project_id').del();
  await knex.raw('ALTER TABLE emails ALTER COLUMN project_id SET NOT NULL');
  for (const table of [
    'billing_events',
    'billing_invoices',
    'billing_accounts',
    'billing_usage_carry',
    'billing_limits',
    'project_suspensions',
    'project_invites',
    'user_tokens',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
  await knex.raw('ALTER TABLE project_members DROP CONSTRAINT IF EXISTS project_members_role_check');
}
