import type { Knex } from 'knex';

/**
 * The inbound server asks "which project verified this domain?" at every RCPT TO of
 * `<anything>@inbound.<domain>` (db/inbound projectForInboundDomain), for each parent of the
 * domain: by name across projects, which the (project_id, domain) key cannot answer. Partial: only
 * verified domains receive mail.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw("CREATE INDEX IF NOT EXISTS domains_verified_by_name ON domains (domain, verified_at, id) WHERE status = 'VERIFIED'");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS domains_verified_by_name');
}
