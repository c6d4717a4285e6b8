import type { Knex } from 'knex';

/**
 * Indexes for the activity feed, the events listings and the analytics windows. Built CONCURRENTLY
 * (outside a transaction) because events and emails are the largest tables of a running install:
 * a plain CREATE INDEX would block every send and track until it finished.
 */
export const config = { transaction: false };

const INDEXES: Array<[name: string, table: string, columns: string]> = [
  // Recent events of a project (GET /events, the activity feed, windowed counts), newest first.
  ['events_project_created_id', 'events', '(project_id, created_at DESC, id DESC)'],
  // One contact's timeline (GET /events/contact/:id) without the name in front.
  ['events_contact_created_id', 'events', '(contact_id, created_at DESC, id DESC)'],
  // Failed emails in the feed and in the windowed counts.
  ['emails_project_status_updated', 'emails', '(project_id, status, updated_at DESC, id DESC)'],
  // Campaigns that started sending in a window (top campaigns, campaign stats).
  ['campaigns_project_started', 'campaigns', '(project_id, started_at) WHERE started_at IS NOT NULL'],
  // GET /activity/upcoming: what is scheduled or still running, per project.
  ['campaigns_project_scheduled', 'campaigns', "(project_id, scheduled_for) WHERE status = 'SCHEDULED'"],
  ['workflow_executions_project_active', 'workflow_executions', "(project_id, waiting_since) WHERE status IN ('RUNNING', 'WAITING')"],
];

export async function up(knex: Knex): Promise<void> {
  for (const [name, table, columns] of INDEXES) await knex.raw(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${name} ON ${table} ${columns}`);
}

export async function down(knex: Knex): Promise<void> {
  for (const [name] of [...INDEXES].reverse()) await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
}
