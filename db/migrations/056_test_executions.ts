import type { Knex } from 'knex';

/**
 * Test runs of a workflow (POST /workflows/:id/test, docs/workflows.md): `test` holds where their
 * emails go and whether their webhooks are called; null on every real execution. A test run is
 * not the contact's run: it neither blocks nor is blocked by the contact's active execution.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE workflow_executions ADD COLUMN IF NOT EXISTS test jsonb');
  await knex.raw('DROP INDEX IF EXISTS workflow_executions_one_active');
  await knex.raw(
    `CREATE UNIQUE INDEX workflow_executions_one_active ON workflow_executions (workflow_id, contact_id)
       WHERE status IN ('RUNNING', 'WAITING') AND test IS NULL`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("DELETE FROM workflow_executions WHERE test IS NOT NULL AND status IN ('RUNNING', 'WAITING')");
  await knex.raw('DROP INDEX IF EXISTS workflow_executions_one_active');
  await knex.raw(
    `CREATE UNIQUE INDEX workflow_executions_one_active ON workflow_executions (workflow_id, contact_id)
       WHERE status IN ('RUNNING', 'WAITING')`,
  );
  await knex.raw('ALTER TABLE workflow_executions DROP COLUMN IF EXISTS test');
}
