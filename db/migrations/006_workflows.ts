import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('workflows', (t) => {
    t.uuid('id').primary();
    t.uuid('project_id').notNullable().references('projects.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('description');
    t.boolean('enabled').notNullable().defaultTo(false);
    t.boolean('allow_reentry').notNullable().defaultTo(false);
    t.text('trigger_type').notNullable().defaultTo('EVENT');
    t.jsonb('trigger_config').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['project_id', 'created_at']);
  });
  // Every routed event asks "which enabled workflows of this project does this name trigger?".
  await knex.raw(`CREATE INDEX workflows_trigger_idx ON workflows (project_id, (trigger_config->>'eventName')) WHERE enabled`);

  await knex.schema.createTable('workflow_steps', (t) => {
    t.uuid('id').primary();
    t.uuid('workflow_id').notNullable().references('workflows.id').onDelete('CASCADE');
    t.text('type').notNullable();
    t.text('name').notNullable();
    t.jsonb('config').notNullable().defaultTo('{}');
    t.jsonb('position');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['workflow_id', 'created_at']);
  });
  // One TRIGGER per workflow: it is where every execution starts.
  await knex.raw(`CREATE UNIQUE INDEX workflow_steps_one_trigger ON workflow_steps (workflow_id) WHERE type = 'TRIGGER'`);

  await knex.schema.createTable('workflow_transitions', (t) => {
    t.uuid('id').primary();
    t.uuid('workflow_id').notNullable().references('workflows.id').onDelete('CASCADE');
    t.uuid('from_step_id').notNullable().references('workflow_steps.id').onDelete('CASCADE');
    t.uuid('to_step_id').notNullable().references('workflow_steps.id').onDelete('CASCADE');
    t.text('branch').notNullable().defaultTo('next');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // At most one transition per (step, branch), whoever writes.
    t.unique(['from_step_id', 'branch']);
    t.index(['workflow_id']);
    t.index(['to_step_id']);
  });

  await knex.schema.createTable('workflow_executions', (t) => {
    t.uuid('id').primary();
    t.uuid('project_id').notNullable().references('projects.id').onDelete('CASCADE');
    t.uuid('workflow_id').notNullable().references('workflows.id').onDelete('CASCADE');
    t.text('contact_id').notNullable().references('contacts.id').onDelete('CASCADE');
    t.text('status').notNullable().defaultTo('RUNNING');
    // No foreign key: a step may be deleted from the graph while an execution still runs its snapshot.
    t.uuid('current_step_id');
    t.jsonb('context').notNullable().defaultTo('{}');
    t.text('error');
    t.uuid('trigger_event_id');
    // Set while a WAIT_FOR_EVENT step waits: routeEvent signals the executions listed here.
    t.text('waiting_for');
    t.integer('waiting_seq');
    t.timestamp('waiting_since', { useTz: true });
    // When the timer of the current DELAY or WAIT_FOR_EVENT timeout fires (null: waits for an event only).
    t.timestamp('wake_at', { useTz: true });
    t.timestamp('started_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('finished_at', { useTz: true });
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['workflow_id', 'started_at']);
    t.index(['contact_id']);
  });
  await knex.raw(
    `ALTER TABLE workflow_executions ADD CONSTRAINT workflow_executions_status_check
       CHECK (status IN ('RUNNING', 'WAITING', 'COMPLETED', 'EXITED', 'FAILED', 'CANCELLED'))`,
  );
  // At most one active execution per (workflow, contact): what makes concurrent triggers of a
  // re-entrant workflow start one execution, and what the 409s on trigger change and delete read.
  await knex.raw(
    `CREATE UNIQUE INDEX workflow_executions_one_active ON workflow_executions (workflow_id, contact_id)
       WHERE status IN ('RUNNING', 'WAITING')`,
  );
  await knex.raw(`CREATE INDEX workflow_executions_waiting ON workflow_executions (contact_id, waiting_for) WHERE status = 'WAITING'`);

  // First entry of a contact into a workflow: the primary key is what keeps a non-re-entrant
  // workflow from ever starting twice for one contact, however many triggers race.
  await knex.schema.createTable('workflow_entries', (t) => {
    t.uuid('workflow_id').notNullable().references('workflows.id').onDelete('CASCADE');
    t.text('contact_id').notNullable().references('contacts.id').onDelete('CASCADE');
    t.uuid('first_execution_id').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['workflow_id', 'contact_id']);
  });

  // Per-step history, keyed by the step's sequence number in its execution so a retried mirror
  // activity writes the same row again.
  await knex.schema.createTable('workflow_execution_steps', (t) => {
    t.uuid('execution_id').notNullable().references('workflow_executions.id').onDelete('CASCADE');
    t.integer('seq').notNullable();
    t.uuid('step_id').notNullable();
    t.text('type').notNullable();
    t.text('status').notNullable();
    t.jsonb('output');
    t.text('error');
    t.timestamp('started_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('finished_at', { useTz: true });
    t.primary(['execution_id', 'seq']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['workflow_execution_steps', 'workflow_entries', 'workflow_executions', 'workflow_transitions', 'workflow_steps', 'workflows']) {
    await knex.schema.dropTableIfExists(table);
  }
}
