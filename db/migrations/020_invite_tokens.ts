import type { Knex } from 'knex';

/**
 * Invites are accepted with a token mailed to the invited address (only its sha256 is stored) and
 * expire after 7 days; every invitation email is logged, so per-project and per-address limits
 * hold however invites are withdrawn and made again (db/members.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('project_invites', (t) => {
    t.text('token_hash').unique();
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('last_sent_at', { useTz: true });
  });
  // Invites from before carry no token: nobody can accept them, they run out a week after creation,
  // and making the invite again mails a token.
  await knex.raw(`UPDATE project_invites SET expires_at = created_at + interval '7 days'`);
  await knex.raw('ALTER TABLE project_invites ALTER COLUMN expires_at SET NOT NULL');

  // Not cascaded from projects: deleting the project must not hand its addresses a fresh daily allowance.
  await knex.schema.createTable('invite_emails', (t) => {
    t.uuid('id').primary();
    t.uuid('project_id').references('projects.id').onDelete('SET NULL');
    t.text('email').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['project_id', 'created_at']);
    t.index(['email', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('invite_emails');
  await knex.schema.alterTable('project_invites', (t) => {
    t.dropColumn('token_hash');
    t.dropColumn('expires_at');
    t.dropColumn('last_sent_at');
  });
}
