import type { Knex } from 'knex';

/**
 * Batched hand-off of /v1/send (docs/benchmarks.md "POST /v1/send in batches"): each email row
 * names the `deliverEmailBatch` workflow that delivers it, from the moment it is committed. The
 * batch's activity reads its rows by that name, and the maintenance sweep starts a batch again
 * under it when an API crash kept the workflow from starting.
 *
 * Runs outside a transaction because the index on `emails` is built CONCURRENTLY (emails is one of
 * the largest tables of a running install); every step is re-runnable instead.
 */
export const config = { transaction: false };

export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE emails ADD COLUMN IF NOT EXISTS delivery_workflow text');
  await knex.raw('CREATE INDEX CONCURRENTLY IF NOT EXISTS emails_delivery_workflow ON emails (delivery_workflow) WHERE delivery_workflow IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX CONCURRENTLY IF EXISTS emails_delivery_workflow');
  await knex.raw('ALTER TABLE emails DROP COLUMN IF EXISTS delivery_workflow');
}
