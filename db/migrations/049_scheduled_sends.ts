import type { Knex } from 'knex';

/**
 * Scheduled sends (docs/api.md "Scheduled sends"): an email written with `sendAt` waits SCHEDULED
 * with its `send_at` until the minute's `scheduledSend` workflow hands it over. The partial index is
 * what that workflow's activity walks: the due SCHEDULED rows of one project, earliest first.
 * `idempotency_keys.response` keeps the answer of a route that replays it (POST /v1/send/batch).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE emails ADD COLUMN IF NOT EXISTS send_at timestamptz');
  await knex.raw("CREATE INDEX IF NOT EXISTS emails_scheduled_due ON emails (project_id, send_at) WHERE status = 'SCHEDULED'");
  await knex.raw('ALTER TABLE idempotency_keys ADD COLUMN IF NOT EXISTS response jsonb');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE idempotency_keys DROP COLUMN IF EXISTS response');
  await knex.raw('DROP INDEX IF EXISTS emails_scheduled_due');
  await knex.raw('ALTER TABLE emails DROP COLUMN IF EXISTS send_at');
}
