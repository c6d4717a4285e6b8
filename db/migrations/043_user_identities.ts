import type { Knex } from 'knex';

/**
 * Single sign-on (docs/security.md "Single sign-on"): an OpenID provider's account, named by its
 * issuer and subject (the `iss` and `sub` of its ID tokens, which never change), linked to one
 * user. The email the provider last vouched for is kept for the record only: the link, not the
 * address, finds the user again after the address changes at the provider.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('user_identities', (t) => {
    t.text('issuer').notNullable();
    t.text('subject').notNullable();
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('email').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_sign_in_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['issuer', 'subject']);
    t.index(['user_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('user_identities');
}
