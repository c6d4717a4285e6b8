import type { Knex } from 'knex';

/**
 * One DKIM key pair per sender domain (services/dkim.ts), generated when the domain is added. The
 * private key is sealed (lib/secretBox.ts); the selector is kept per key, so changing DKIM_SELECTOR
 * later leaves the records owners already published valid. A separate table keeps the sealed key
 * out of every `domains` read.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('dkim_keys', (t) => {
    t.uuid('domain_id').primary().references('id').inTable('domains').onDelete('CASCADE');
    t.text('selector').notNullable();
    /** base64 of the DER SubjectPublicKeyInfo: the `p=` value of the DNS record. */
    t.text('public_key').notNullable();
    t.text('private_key_sealed').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('dkim_keys');
}
