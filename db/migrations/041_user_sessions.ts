import type { Knex } from 'knex';

/** Account screens (docs/dashboard.md "Your account"): a display name, listed and revocable sessions, email changes. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.text('name');
  });
  // One row per sign-in; its id is the cookie's `sid` (api/sessionCookie.ts). A revoked row ends
  // exactly that cookie, where users.session_version ends them all.
  await knex.schema.createTable('user_sessions', (t) => {
    t.uuid('id').primary();
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_seen_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.text('user_agent');
    t.text('ip');
    t.timestamp('revoked_at', { useTz: true });
    t.index(['user_id', 'created_at']);
  });
  // An email change is a token mailed to the new address; the address waits beside it until the link is opened.
  await knex.schema.alterTable('user_tokens', (t) => {
    t.text('new_email');
  });
  await knex.raw('ALTER TABLE user_tokens DROP CONSTRAINT user_tokens_purpose_check');
  await knex.raw(`ALTER TABLE user_tokens ADD CONSTRAINT user_tokens_purpose_check CHECK (purpose IN ('VERIFY_EMAIL', 'RESET_PASSWORD', 'CHANGE_EMAIL'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex('user_tokens').where({ purpose: 'CHANGE_EMAIL' }).del();
  await knex.raw('ALTER TABLE user_tokens DROP CONSTRAINT user_tokens_purpose_check');
  await knex.raw(`ALTER TABLE user_tokens ADD CONSTRAINT user_tokens_purpose_check CHECK (purpose IN ('VERIFY_EMAIL', 'RESET_PASSWORD'))`);
  await knex.schema.alterTable('user_tokens', (t) => t.dropColumn('new_email'));
  await knex.schema.dropTable('user_sessions');
  await knex.schema.alterTable('users', (t) => t.dropColumn('name'));
}
