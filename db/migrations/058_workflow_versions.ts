import type { Knex } from 'knex';

/**
 * Workflow versions (docs/workflows.md "Versions"): every graph an enabled workflow ran, numbered, with
 * who and what changed; an execution keeps the number of the version it started on.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS workflow_versions (
      workflow_id uuid NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
      number integer NOT NULL,
      graph jsonb NOT NULL,
      layout jsonb NOT NULL DEFAULT '{}'::jsonb,
      note text NOT NULL,
      created_by text,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (workflow_id, number)
    )`);
  await knex.raw('ALTER TABLE workflow_executions ADD COLUMN IF NOT EXISTS workflow_version integer');
  // Workflows enabled before versions existed: what they run now is their version 1, in the shape
  // db/workflowVersions.ts versionGraph writes (steps by id, transitions by from/branch).
  await knex.raw(`
    INSERT INTO workflow_versions (workflow_id, number, graph, layout, note, created_at)
    SELECT w.id, 1,
      jsonb_build_object(
        'eventName', w.trigger_config->>'eventName',
        'steps', COALESCE((SELECT jsonb_agg(jsonb_build_object('id', s.id, 'type', s.type, 'name', s.name, 'config', s.config) ORDER BY s.id::text COLLATE "C")
                            FROM workflow_steps s WHERE s.workflow_id = w.id), '[]'::jsonb),
        'transitions', COALESCE((SELECT jsonb_agg(jsonb_build_object('from', t.from_step_id, 'to', t.to_step_id, 'branch', t.branch)
                                   ORDER BY (t.from_step_id::text || '/' || t.branch) COLLATE "C")
                                 FROM workflow_transitions t WHERE t.workflow_id = w.id), '[]'::jsonb)),
      COALESCE((SELECT jsonb_object_agg(s.id, s.position) FROM workflow_steps s WHERE s.workflow_id = w.id AND s.position IS NOT NULL), '{}'::jsonb),
      'First version', now()
    FROM workflows w WHERE w.enabled
    ON CONFLICT DO NOTHING`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE workflow_executions DROP COLUMN IF EXISTS workflow_version');
  await knex.raw('DROP TABLE IF EXISTS workflow_versions');
}
