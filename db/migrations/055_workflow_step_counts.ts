import type { Knex } from 'knex';

/**
 * Per-step counters of a workflow (db/workflowStepCounts.ts reads them), kept as executions move so
 * the canvas reads a few rows instead of scanning executions. One row per (workflow, step, metric,
 * hour): `entered`, `left:<branch>`, `ended`, `failed` and `cancelled` count in the hour they
 * happened; `waiting` is a gauge (executions waiting at the step now), kept at hour '-infinity'.
 *
 * Triggers keep them, so every writer counts the same way and exactly once:
 * - a step row inserted (workflow_execution_steps is unique per execution and seq: a retried write
 *   inserts nothing) is an entry;
 * - a step row whose finished_at goes from null to set (the engine's write only moves unfinished rows)
 *   is a leaving, by the `branch` it now records;
 * - an execution row moving into or out of WAITING, or deleted while WAITING (its contact deleted),
 *   moves the gauge: the row's own old and new versions say so, whatever statement wrote them.
 * Statement triggers sum their rows and write them in key order, so concurrent statements lock
 * shared counters in one order. No foreign key to the step: an execution running on a graph whose
 * step was since deleted still counts.
 *
 * A SEND_EMAIL step's sent / opened / clicked come from its emails, which now name the step.
 */
const UPSERT = `ON CONFLICT (workflow_id, step_id, metric, hour) DO UPDATE SET count = workflow_step_counts.count + EXCLUDED.count`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS workflow_step_counts (
      workflow_id uuid NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
      step_id uuid NOT NULL,
      metric text NOT NULL,
      hour timestamptz NOT NULL,
      count bigint NOT NULL DEFAULT 0,
      PRIMARY KEY (workflow_id, step_id, metric, hour)
    )`);
  // The branch a step was left by (null: it ended the execution, failed or was cancelled).
  await knex.raw('ALTER TABLE workflow_execution_steps ADD COLUMN IF NOT EXISTS branch text');
  await knex.raw('ALTER TABLE emails ADD COLUMN IF NOT EXISTS workflow_step_id uuid');
  // Test runs (056_test_executions owns the column, added here first because the counters leave them out).
  await knex.raw('ALTER TABLE workflow_executions ADD COLUMN IF NOT EXISTS test jsonb');
  await knex.raw(`CREATE INDEX IF NOT EXISTS emails_workflow_step ON emails (workflow_step_id, created_at) WHERE workflow_step_id IS NOT NULL`);

  await knex.raw(`
    CREATE OR REPLACE FUNCTION workflow_step_counts_entered() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO workflow_step_counts (workflow_id, step_id, metric, hour, count)
      SELECT x.workflow_id, n.step_id, 'entered', date_trunc('hour', n.started_at), count(*)
        FROM new_steps n JOIN workflow_executions x ON x.id = n.execution_id
       WHERE x.test IS NULL
       GROUP BY 1, 2, 4 ORDER BY 1, 2, 4
      ${UPSERT};
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE OR REPLACE FUNCTION workflow_step_counts_left() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO workflow_step_counts (workflow_id, step_id, metric, hour, count)
      SELECT x.workflow_id, n.step_id,
             CASE WHEN n.branch IS NOT NULL THEN 'left:' || n.branch
                  WHEN n.status = 'FAILED' THEN 'failed'
                  WHEN n.status = 'CANCELLED' THEN 'cancelled'
                  ELSE 'ended' END,
             date_trunc('hour', n.finished_at), count(*)
        FROM new_steps n
        JOIN old_steps o ON o.execution_id = n.execution_id AND o.seq = n.seq
        JOIN workflow_executions x ON x.id = n.execution_id
       WHERE o.finished_at IS NULL AND n.finished_at IS NOT NULL AND x.test IS NULL
       GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
      ${UPSERT};
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE OR REPLACE FUNCTION workflow_step_counts_waiting() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO workflow_step_counts (workflow_id, step_id, metric, hour, count)
      SELECT workflow_id, step_id, 'waiting', '-infinity', sum(n)
        FROM (SELECT workflow_id, current_step_id AS step_id, -1 AS n FROM old_executions WHERE status = 'WAITING' AND test IS NULL
              UNION ALL
              SELECT workflow_id, current_step_id, 1 FROM new_executions WHERE status = 'WAITING' AND test IS NULL) d
       WHERE step_id IS NOT NULL
       GROUP BY 1, 2 HAVING sum(n) <> 0 ORDER BY 1, 2
      ${UPSERT};
      RETURN NULL;
    END $$`);
  // Deleted executions only lower existing gauges: when the workflow itself is being deleted its
  // counters may be gone already, and a new row would name a workflow that no longer exists.
  await knex.raw(`
    CREATE OR REPLACE FUNCTION workflow_step_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE workflow_step_counts c SET count = c.count - d.n
        FROM (SELECT workflow_id, current_step_id AS step_id, count(*) AS n FROM old_executions
               WHERE status = 'WAITING' AND current_step_id IS NOT NULL AND test IS NULL GROUP BY 1, 2) d
       WHERE c.workflow_id = d.workflow_id AND c.step_id = d.step_id AND c.metric = 'waiting' AND c.hour = '-infinity';
      RETURN NULL;
    END $$`);
  await knex.raw(`DROP TRIGGER IF EXISTS step_counts_entered ON workflow_execution_steps`);
  await knex.raw(`CREATE TRIGGER step_counts_entered AFTER INSERT ON workflow_execution_steps
    REFERENCING NEW TABLE AS new_steps FOR EACH STATEMENT EXECUTE FUNCTION workflow_step_counts_entered()`);
  await knex.raw(`DROP TRIGGER IF EXISTS step_counts_left ON workflow_execution_steps`);
  await knex.raw(`CREATE TRIGGER step_counts_left AFTER UPDATE ON workflow_execution_steps
    REFERENCING OLD TABLE AS old_steps NEW TABLE AS new_steps FOR EACH STATEMENT EXECUTE FUNCTION workflow_step_counts_left()`);
  await knex.raw(`DROP TRIGGER IF EXISTS step_counts_waiting ON workflow_executions`);
  await knex.raw(`CREATE TRIGGER step_counts_waiting AFTER UPDATE ON workflow_executions
    REFERENCING OLD TABLE AS old_executions NEW TABLE AS new_executions FOR EACH STATEMENT EXECUTE FUNCTION workflow_step_counts_waiting()`);
  await knex.raw(`DROP TRIGGER IF EXISTS step_counts_deleted ON workflow_executions`);
  await knex.raw(`CREATE TRIGGER step_counts_deleted AFTER DELETE ON workflow_executions
    REFERENCING OLD TABLE AS old_executions FOR EACH STATEMENT EXECUTE FUNCTION workflow_step_counts_deleted()`);

  // What is known of executions already under way: their step entries and who waits where. Which
  // branch a step was left by was not recorded before, so those counts start with this migration.
  await knex.raw(`
    INSERT INTO workflow_step_counts (workflow_id, step_id, metric, hour, count)
    SELECT x.workflow_id, s.step_id, 'entered', date_trunc('hour', s.started_at), count(*)
      FROM workflow_execution_steps s JOIN workflow_executions x ON x.id = s.execution_id
     GROUP BY 1, 2, 4
    ${UPSERT}`);
  await knex.raw(`
    INSERT INTO workflow_step_counts (workflow_id, step_id, metric, hour, count)
    SELECT workflow_id, current_step_id, 'waiting', '-infinity', count(*)
      FROM workflow_executions WHERE status = 'WAITING' AND current_step_id IS NOT NULL
     GROUP BY 1, 2
    ${UPSERT}`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS step_counts_entered ON workflow_execution_steps');
  await knex.raw('DROP TRIGGER IF EXISTS step_counts_left ON workflow_execution_steps');
  await knex.raw('DROP TRIGGER IF EXISTS step_counts_waiting ON workflow_executions');
  await knex.raw('DROP TRIGGER IF EXISTS step_counts_deleted ON workflow_executions');
  for (const f of ['entered', 'left', 'waiting', 'deleted']) await knex.raw(`DROP FUNCTION IF EXISTS workflow_step_counts_${f}()`);
  await knex.raw('DROP INDEX IF EXISTS emails_workflow_step');
  await knex.raw('ALTER TABLE emails DROP COLUMN IF EXISTS workflow_step_id');
  await knex.raw('ALTER TABLE workflow_execution_steps DROP COLUMN IF EXISTS branch');
  await knex.raw('DROP TABLE IF EXISTS workflow_step_counts');
}
