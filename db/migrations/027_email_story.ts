import type { Knex } from 'knex';

/**
 * GET /emails and GET /emails/:id (db/emailQueries): the project's emails newest first, keyset over
 * (created_at, id), optionally of one status; and the execution a SEND_EMAIL step wrote the email
 * for (null for every other email: /v1/send, campaigns, system mail). Runs outside a transaction
 * because the indexes on `emails` are built CONCURRENTLY (emails is one of the largest tables of a
 * running install: a plain CREATE INDEX would block every send until it finished). The column is
 * nullable without a default: no table rewrite.
 */
export const config = { transaction: false };

const INDEXES: Array<[name: string, columns: string]> = [
  ['emails_project_created_id', '(project_id, created_at DESC, id DESC)'],
  ['emails_project_status_created_id', '(project_id, status, created_at DESC, id DESC)'],
];

export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE emails ADD COLUMN IF NOT EXISTS workflow_execution_id uuid');
  for (const [name, columns] of INDEXES) await knex.raw(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${name} ON emails ${columns}`);
}

export async function down(knex: Knex): Promise<void> {
  for (const [name] of [...INDEXES].reverse()) await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
  await knex.raw('ALTER TABLE emails DROP COLUMN IF EXISTS workflow_execution_id');
}
