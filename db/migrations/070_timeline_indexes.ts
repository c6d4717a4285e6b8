import type { Knex } from 'knex';

/**
 * A contact's timeline (GET /contacts/:id/timeline) reads each source newest first by its contact:
 * one (contact_id, time DESC, id DESC) index per source, so a page is an index range scan whatever
 * the project's size. events already has one (009, events_contact_created_id). Built CONCURRENTLY
 * (outside a transaction): emails is among the largest tables of a running install.
 */
export const config = { transaction: false };

const INDEXES: Array<[name: string, table: string, columns: string]> = [
  ['emails_contact_created_id', 'emails', '(contact_id, created_at DESC, id DESC) WHERE contact_id IS NOT NULL'],
  ['workflow_executions_contact_started_id', 'workflow_executions', '(contact_id, started_at DESC, id DESC)'],
  ['consent_records_contact_at_id', 'consent_records', '(contact_id, at DESC, id DESC)'],
  ['inbound_messages_contact_created_id', 'inbound_messages', '(contact_id, created_at DESC, id DESC) WHERE contact_id IS NOT NULL'],
];

export async function up(knex: Knex): Promise<void> {
  for (const [name, table, columns] of INDEXES) await knex.raw(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${name} ON ${table} ${columns}`);
}

export async function down(knex: Knex): Promise<void> {
  for (const [name] of [...INDEXES].reverse()) await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
}
