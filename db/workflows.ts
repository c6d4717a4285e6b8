import type { Knex } from 'knex';
import { whereAnyContains } from './search';
import { pageOf } from './pages';
import { inferType, FieldType } from '../lib/contactData';
import { uuid } from '../lib/ids';
import { DomainError } from '../lib/domainErrors';
import { TRIGGER_STEP_TYPE } from '../lib/triggerStep';
import { StepPath } from './stepPaths';
import { findVersion, recordVersion, versionGraph } from './workflowVersions';

/**
 * Workflow definitions (docs/workflows.md): the record, its step graph and the graph's rules. Executions
 * live in db/executions.ts.
 */

export const TRIGGER = TRIGGER_STEP_TYPE;
export const ACTIVE_STATUSES = ['RUNNING', 'WAITING'] as const;

export interface WorkflowRow {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  enabled: boolean;
  allow_reentry: boolean;
  trigger_type: 'EVENT';
  trigger_config: { eventName: string };
  created_at: Date;
  updated_at: Date;
}

export interface StepRow {
  id: string;
  workflow_id: string;
  type: string;
  name: string;
  config: Record<string, unknown>;
  position: { x: number; y: number } | null;
  created_at: Date;
  updated_at: Date;
}

export interface TransitionRow {
  id: string;
  workflow_id: string;
  from_step_id: string;
  to_step_id: string;
  branch: string;
  created_at: Date;
}

export interface Graph {
  steps: StepRow[];
  transitions: TransitionRow[];
}

/** "SEND_EMAIL" → "Send email": the name a step gets when none is given. */
const defaultStepName = (type: string) => type.charAt(0) + type.slice(1).toLowerCase().replace(/_/g, ' ');

// ───────────────────────────── reads ─────────────────────────────

export async function findWorkflow(db: Knex, projectId: string, id: string): Promise<WorkflowRow | undefined> {
  return db<WorkflowRow>('workflows').where({ project_id: projectId, id }).first();
}

/** The graphs of several workflows in two queries. */
async function loadGraphs(db: Knex, workflowIds: string[]): Promise<Map<string, Graph>> {
  const out = new Map<string, Graph>(workflowIds.map((id) => [id, { steps: [], transitions: [] }]));
  if (!workflowIds.length) return out;
  const [steps, transitions] = await Promise.all([
    db<StepRow>('workflow_steps')
      .whereIn('workflow_id', workflowIds)
      .orderBy([{ column: 'created_at' }, { column: 'id' }]),
    db<TransitionRow>('workflow_transitions')
      .whereIn('workflow_id', workflowIds)
      .orderBy([{ column: 'created_at' }, { column: 'id' }]),
  ]);
  for (const s of steps) out.get(s.workflow_id)!.steps.push(s);
  for (const t of transitions) out.get(t.workflow_id)!.transitions.push(t);
  return out;
}

export async function loadGraph(db: Knex, workflowId: string): Promise<Graph> {
  return (await loadGraphs(db, [workflowId])).get(workflowId)!;
}

export interface ListWorkflowsInput {
  page: number;
  pageSize: number;
  search?: string;
  enabled?: boolean;
}

export async function listWorkflows(db: Knex, projectId: string, input: ListWorkflowsInput) {
  const filtered = () => {
    const q = db<WorkflowRow>('workflows').where({ project_id: projectId });
    if (input.enabled !== undefined) q.andWhere({ enabled: input.enabled });
    if (input.search) whereAnyContains(q, ['name', 'description'], input.search);
    return q;
  };
  const page = await pageOf<WorkflowRow>(filtered, { page: input.page, pageSize: input.pageSize, orderSql: 'created_at', dir: 'desc' });
  const graphs = await loadGraphs(
    db,
    page.rows.map((r) => r.id),
  );
  return { ...page, graphs };
}

/** Enabled workflows of these projects triggered by one of these event names. */
export async function triggeredWorkflows(
  db: Knex,
  projectIds: string[],
  eventNames: string[],
): Promise<Array<{ id: string; project_id: string; event_name: string }>> {
  if (!projectIds.length) return [];
  return db('workflows')
    .where({ enabled: true })
    .whereIn('project_id', [...new Set(projectIds)])
    .whereRaw(`trigger_config->>'eventName' = ANY(?)`, [[...new Set(eventNames)]])
    .select('id', 'project_id', db.raw(`trigger_config->>'eventName' AS event_name`));
}

/**
 * Graphs, remembered for one routing pass by workflow id and version
 * (`updated_at`, which every graph edit bumps in its own transaction): a batch of events starting
 * the same workflow for many contacts reads its graph once.
 */
export class GraphCache {
  private graphs = new Map<string, Promise<Graph>>();

  graph(db: Knex, workflow: Pick<WorkflowRow, 'id' | 'updated_at'>): Promise<Graph> {
    const key = `${workflow.id}@${new Date(workflow.updated_at).toISOString()}`;
    let graph = this.graphs.get(key);
    if (!graph) {
      graph = loadGraph(db, workflow.id);
      this.graphs.set(key, graph);
      // A failed read must not be remembered.
      graph.catch(() => this.graphs.delete(key));
    }
    return graph;
  }
}

async function hasActiveExecutions(db: Knex, workflowId: string): Promise<boolean> {
  return !!(await db('workflow_executions').where({ workflow_id: workflowId }).whereIn('status', ACTIVE_STATUSES).first('id'));
}

// ───────────────────────────── writes ─────────────────────────────

export interface NewWorkflow {
  name: string;
  description?: string | null;
  eventName: string;
  allowReentry?: boolean;
}

/** The workflow and its TRIGGER step, in one transaction. */
export async function createWorkflow(db: Knex, projectId: string, input: NewWorkflow): Promise<WorkflowRow> {
  return db.transaction(async (trx) => {
    const [row] = await trx<WorkflowRow>('workflows')
      .insert({
        id: uuid(),
        project_id: projectId,
        name: input.name,
        description: input.description ?? null,
        allow_reentry: input.allowReentry ?? false,
        trigger_type: 'EVENT',
        trigger_config: JSON.stringify({ eventName: input.eventName }) as any,
      })
      .returning('*');
    await trx('workflow_steps').insert({
      id: uuid(),
      workflow_id: row.id,
      type: TRIGGER,
      name: 'Trigger',
      config: JSON.stringify({ eventName: input.eventName }),
    });
    return row;
  });
}

export interface NewGraph {
  workflow: NewWorkflow;
  /** Written as given: configs are not validated here (a starter leaves its templates to pick). */
  steps: { key: string; type: string; name: string; config: Record<string, unknown> }[];
  /** `[from, to, branch]` by step key; `trigger` names the TRIGGER step. */
  transitions: [string, string, string][];
}

/** A workflow with a whole graph (services/workflowStarters), in one transaction; positions are left to the layout. */
export async function createWorkflowGraph(db: Knex, projectId: string, input: NewGraph): Promise<WorkflowRow> {
  return db.transaction(async (trx) => {
    const row = await createWorkflow(trx, projectId, input.workflow);
    const trigger = await trx<StepRow>('workflow_steps').where({ workflow_id: row.id, type: TRIGGER }).first('id');
    const ids = new Map<string, string>([['trigger', trigger!.id]]);
    for (const s of input.steps) ids.set(s.key, uuid());
    if (input.steps.length) {
      await trx('workflow_steps').insert(
        // Listed in the starter's order, after the trigger (graphs are read by created_at: one transaction has one now()).
        input.steps.map((s, i) => ({
          id: ids.get(s.key),
          workflow_id: row.id,
          type: s.type,
          name: s.name,
          config: JSON.stringify(s.config),
          created_at: trx.raw(`now() + (? * interval '1 millisecond')`, [i + 1]),
        })),
      );
    }
    if (input.transitions.length) {
      await trx('workflow_transitions').insert(
        input.transitions.map(([from, to, branch]) => ({ id: uuid(), workflow_id: row.id, from_step_id: ids.get(from), to_step_id: ids.get(to), branch })),
      );
    }
    return row;
  });
}

/** Locks the workflow row for the rest of the transaction; throws 404 when the project has none. */
async function lockWorkflow(trx: Knex.Transaction, projectId: string, id: string): Promise<WorkflowRow> {
  const row = await trx<WorkflowRow>('workflows').where({ project_id: projectId, id }).forUpdate().first();
  if (!row) throw new DomainError('not_found', 'Workflow not found');
  return row;
}

/**
 * Moves the trigger (workflow record and TRIGGER step together). Executions started by the old
 * trigger may still be running; changing it under them is refused (spec: 409).
 */
async function setTrigger(trx: Knex.Transaction, workflow: WorkflowRow, eventName: string): Promise<void> {
  if (workflow.trigger_config.eventName === eventName) return;
  if (await hasActiveExecutions(trx, workflow.id)) {
    throw new DomainError('conflict', 'The trigger cannot change while the workflow has active executions; cancel them or let them finish first');
  }
  await trx('workflows')
    .where({ id: workflow.id })
    .update({ trigger_config: JSON.stringify({ eventName }), updated_at: trx.fn.now() });
  await trx('workflow_steps')
    .where({ workflow_id: workflow.id, type: TRIGGER })
    .update({ config: JSON.stringify({ eventName }), updated_at: trx.fn.now() });
}

export interface WorkflowPatch {
  name?: string;
  description?: string | null;
  eventName?: string;
  enabled?: boolean;
  allowReentry?: boolean;
}

/** `beforeEnable` runs inside the transaction with the workflow locked; it throws to refuse. */
export async function updateWorkflow(
  db: Knex,
  projectId: string,
  id: string,
  patch: WorkflowPatch,
  beforeEnable: (trx: Knex.Transaction, workflow: WorkflowRow) => Promise<void>,
): Promise<WorkflowRow> {
  return db.transaction(async (trx) => {
    const workflow = await lockWorkflow(trx, projectId, id);
    if (patch.eventName !== undefined) await setTrigger(trx, workflow, patch.eventName);
    if (patch.enabled && !workflow.enabled) await beforeEnable(trx, workflow);
    const columns: Record<string, unknown> = { updated_at: trx.fn.now() };
    if (patch.name !== undefined) columns.name = patch.name;
    if (patch.description !== undefined) columns.description = patch.description;
    if (patch.enabled !== undefined) columns.enabled = patch.enabled;
    if (patch.allowReentry !== undefined) columns.allow_reentry = patch.allowReentry;
    const [row] = await trx<WorkflowRow>('workflows').where({ id }).update(columns).returning('*');
    // Enabling (or moving the trigger of an enabled workflow) publishes what it now runs.
    if (row.enabled) await versionNow(trx, row);
    return row;
  });
}

/** Refused (409) while executions are active: they would lose their Postgres record mid-run. */
export async function deleteWorkflow(db: Knex, projectId: string, id: string): Promise<void> {
  await db.transaction(async (trx) => {
    await lockWorkflow(trx, projectId, id);
    if (await hasActiveExecutions(trx, id)) {
      throw new DomainError('conflict', 'The workflow has active executions; cancel them (POST /workflows/:id/executions/cancel-all) or let them finish first');
    }
    await trx('workflows').where({ id }).del();
  });
}

async function findStep(trx: Knex.Transaction, workflowId: string, stepId: string): Promise<StepRow> {
  const step = await trx<StepRow>('workflow_steps').where({ workflow_id: workflowId, id: stepId }).first();
  if (!step) throw new DomainError('not_found', 'Step not found');
  return step;
}

/**
 * Every graph edit ends here: the new `updated_at` (GraphCache's key) and, while the workflow is
 * enabled, the next version when what it runs changed (db/workflowVersions.ts).
 */
async function touch(trx: Knex.Transaction, workflowId: string, note?: string): Promise<void> {
  const [row] = await trx<WorkflowRow>('workflows').where({ id: workflowId }).update({ updated_at: trx.fn.now() }).returning('*');
  if (row?.enabled) await versionNow(trx, row, note);
}

/** Records the workflow's graph as a version (unless it equals the newest); the row must be locked. */
async function versionNow(trx: Knex.Transaction, workflow: WorkflowRow, note?: string): Promise<number> {
  const graph = await loadGraph(trx, workflow.id);
  const layout = Object.fromEntries(graph.steps.filter((s) => s.position).map((s) => [s.id, s.position!]));
  const content = versionGraph({ eventName: workflow.trigger_config.eventName, steps: graph.steps, transitions: graph.transitions });
  return recordVersion(trx, workflow.id, content, layout, note);
}

/**
 * "Restore": the version's steps and transitions become the workflow's graph (step ids kept, so an
 * execution's history still names them; positions as they were). Its trigger is restored under the
 * trigger's own rule (409 while executions of the current one are active). An enabled workflow gets
 * the restored graph as its next version at once.
 */
export async function restoreVersion(
  db: Knex,
  projectId: string,
  workflowId: string,
  number: number,
  /** Runs before the commit when the workflow is enabled (what it references may be gone since); throws to refuse. */
  whileEnabled: (trx: Knex.Transaction) => Promise<void>,
): Promise<WorkflowRow> {
  return db.transaction(async (trx) => {
    const workflow = await lockWorkflow(trx, projectId, workflowId);
    const version = await findVersion(trx, workflowId, number);
    if (!version) throw new DomainError('not_found', 'Version not found');
    await setTrigger(trx, workflow, version.graph.eventName);
    const trigger = await trx<StepRow>('workflow_steps').where({ workflow_id: workflowId, type: TRIGGER }).first();
    const oldTrigger = version.graph.steps.find((s) => s.type === TRIGGER);
    // The trigger step keeps its row (one per workflow): the version's transitions from it are moved onto it.
    const idOf = (id: string) => (oldTrigger && id === oldTrigger.id && trigger ? trigger.id : id);
    await trx('workflow_transitions').where({ workflow_id: workflowId }).del();
    await trx('workflow_steps').where({ workflow_id: workflowId }).whereNot({ type: TRIGGER }).del();
    const steps = version.graph.steps.filter((s) => s.type !== TRIGGER);
    if (steps.length) {
      await trx('workflow_steps').insert(
        steps.map((s) => ({
          id: s.id,
          workflow_id: workflowId,
          type: s.type,
          name: s.name,
          config: JSON.stringify(s.config),
          position: version.layout[s.id] ? JSON.stringify(version.layout[s.id]) : null,
        })),
      );
    }
    if (version.graph.transitions.length) {
      await trx('workflow_transitions').insert(
        version.graph.transitions.map((t) => ({ id: uuid(), workflow_id: workflowId, from_step_id: idOf(t.from), to_step_id: idOf(t.to), branch: t.branch })),
      );
    }
    if (workflow.enabled) await whileEnabled(trx);
    await touch(trx, workflowId, `Restored version ${number}`);
    return (await trx<WorkflowRow>('workflows').where({ id: workflowId }).first())!;
  });
}

export interface NewStep {
  type: string;
  name?: string;
  config: Record<string, unknown>;
  position?: { x: number; y: number } | null;
}

/**
 * Where a new step goes in: on `branch` of step `stepId`. What that branch led to (if anything) then
 * follows the new step on its `onward` branch (null: the new step ends the path, and the old
 * target is left unconnected). `branchProblem` judges the branch as for addTransition.
 */
export interface StepInsertion {
  stepId: string;
  branch: string;
  onward: string | null;
  branchProblem: (from: StepRow, branch: string) => string | null;
}

/**
 * `validate` checks the config against the project inside the write's transaction, so what it
 * references (a template) cannot be deleted before the step is committed (db/templates).
 */
export async function addStep(
  db: Knex,
  projectId: string,
  workflowId: string,
  input: NewStep,
  validate?: (trx: Knex.Transaction) => Promise<void>,
  insert?: StepInsertion,
): Promise<StepRow> {
  return db.transaction(async (trx) => {
    await lockWorkflow(trx, projectId, workflowId);
    await validate?.(trx);
    const from = insert ? await trx<StepRow>('workflow_steps').where({ workflow_id: workflowId, id: insert.stepId }).first() : undefined;
    if (insert) {
      if (!from) throw new DomainError('invalid', 'after.stepId is not a step of this workflow', 'after.stepId');
      const problem = insert.branchProblem(from, insert.branch);
      if (problem) throw new DomainError('invalid', problem, 'after.branch');
    }
    const [step] = await trx<StepRow>('workflow_steps')
      .insert({
        id: uuid(),
        workflow_id: workflowId,
        type: input.type,
        name: input.name ?? defaultStepName(input.type),
        config: JSON.stringify(input.config) as any,
        position: input.position ? (JSON.stringify(input.position) as any) : null,
      })
      .returning('*');
    if (insert && from) {
      // In place: the branch now leads to the new step, and the new step on to where it led.
      const [old] = await trx<TransitionRow>('workflow_transitions')
        .where({ workflow_id: workflowId, from_step_id: from.id, branch: insert.branch })
        .del()
        .returning('*');
      const rows = [{ id: uuid(), workflow_id: workflowId, from_step_id: from.id, to_step_id: step.id, branch: insert.branch }];
      if (old && insert.onward) rows.push({ id: uuid(), workflow_id: workflowId, from_step_id: step.id, to_step_id: old.to_step_id, branch: insert.onward });
      await trx('workflow_transitions').insert(rows);
    }
    await touch(trx, workflowId);
    return step;
  });
}

export interface StepPatch {
  name?: string;
  config?: Record<string, unknown>;
  position?: { x: number; y: number } | null;
}

/**
 * `validate` sees the step's type before the config is written, inside the write's transaction (as
 * for addStep); a TRIGGER config moves the trigger.
 */
export async function updateStep(
  db: Knex,
  projectId: string,
  workflowId: string,
  stepId: string,
  patch: StepPatch,
  validate: (step: StepRow, trx: Knex.Transaction) => Promise<Record<string, unknown> | undefined>,
): Promise<StepRow> {
  return db.transaction(async (trx) => {
    const workflow = await lockWorkflow(trx, projectId, workflowId);
    const step = await findStep(trx, workflowId, stepId);
    const config = await validate(step, trx);
    if (step.type === TRIGGER && config) await setTrigger(trx, workflow, String(config.eventName));
    const columns: Record<string, unknown> = { updated_at: trx.fn.now() };
    if (patch.name !== undefined) columns.name = patch.name;
    if (config !== undefined) columns.config = JSON.stringify(config);
    if (patch.position !== undefined) columns.position = patch.position ? JSON.stringify(patch.position) : null;
    const [row] = await trx<StepRow>('workflow_steps').where({ id: stepId }).update(columns).returning('*');
    await touch(trx, workflowId);
    return row;
  });
}

/**
 * Deletes a step and its transitions. With `splice`, the transitions that led into it are moved to
 * its `next` successor first, so `A → X → B` becomes `A → B` (a transition that would then point at
 * its own step is dropped).
 */
export async function deleteStep(db: Knex, projectId: string, workflowId: string, stepId: string, splice: boolean): Promise<void> {
  await db.transaction(async (trx) => {
    await lockWorkflow(trx, projectId, workflowId);
    const step = await findStep(trx, workflowId, stepId);
    if (step.type === TRIGGER) throw new DomainError('conflict', 'The trigger step cannot be deleted; change the trigger with PATCH /workflows/:id instead');
    if (splice) {
      const next = await trx<TransitionRow>('workflow_transitions').where({ from_step_id: stepId, branch: 'next' }).first();
      if (next && next.to_step_id !== stepId) {
        await trx('workflow_transitions').where({ to_step_id: stepId, from_step_id: next.to_step_id }).del();
        await trx('workflow_transitions').where({ to_step_id: stepId }).whereNot({ from_step_id: stepId }).update({ to_step_id: next.to_step_id });
      }
    }
    await trx('workflow_steps').where({ id: stepId }).del();
    await touch(trx, workflowId);
  });
}

export interface NewTransition {
  fromStepId: string;
  toStepId: string;
  branch: string;
}

/** `branchProblem` judges the branch against the source step (its type's branches, its config); null accepts it. */
export async function addTransition(
  db: Knex,
  projectId: string,
  workflowId: string,
  input: NewTransition,
  branchProblem: (from: StepRow, branch: string) => string | null,
): Promise<TransitionRow> {
  return db.transaction(async (trx) => {
    await lockWorkflow(trx, projectId, workflowId);
    const steps = await trx<StepRow>('workflow_steps').where({ workflow_id: workflowId }).whereIn('id', [input.fromStepId, input.toStepId]);
    const from = steps.find((s) => s.id === input.fromStepId);
    const to = steps.find((s) => s.id === input.toStepId);
    if (!from) throw new DomainError('invalid', 'fromStepId is not a step of this workflow', 'fromStepId');
    if (!to) throw new DomainError('invalid', 'toStepId is not a step of this workflow', 'toStepId');
    if (from.id === to.id) throw new DomainError('invalid', 'a transition cannot lead back to its own step', 'toStepId');
    if (to.type === TRIGGER) throw new DomainError('invalid', 'no transition may lead into the trigger', 'toStepId');
    const problem = branchProblem(from, input.branch);
    if (problem) throw new DomainError('invalid', problem, 'branch');
    const [row] = await trx<TransitionRow>('workflow_transitions')
      .insert({ id: uuid(), workflow_id: workflowId, from_step_id: from.id, to_step_id: to.id, branch: input.branch })
      .onConflict(['from_step_id', 'branch'])
      .ignore()
      .returning('*');
    if (!row) throw new DomainError('conflict', `step "${from.name}" already has a ${input.branch} transition; delete it first`);
    await touch(trx, workflowId);
    return row;
  });
}

export async function deleteTransition(db: Knex, projectId: string, workflowId: string, transitionId: string): Promise<void> {
  await db.transaction(async (trx) => {
    await lockWorkflow(trx, projectId, workflowId);
    const n = await trx('workflow_transitions').where({ workflow_id: workflowId, id: transitionId }).del();
    if (!n) throw new DomainError('not_found', 'Transition not found');
    await touch(trx, workflowId);
  });
}

// ───────────────────────────── fields ─────────────────────────────

export interface EventFieldSet {
  eventName: string;
  /** As a CONDITION filter field (triggered, within, counts). */
  field: string;
  /** Keys seen in the data of recent events of that name, as Liquid and the execution context see them. */
  data: { key: string; field: string; type: FieldType }[];
}

/** Events sampled per name: enough to see every key a producer sends, cheap on a big events table. */
const EVENT_SAMPLE = 200;

/** The event names the project's workflows (or one of them) start on or wait for (`paths`: where step types keep one). */
export async function workflowEventNames(db: Knex, projectId: string, paths: readonly StepPath[], workflowId?: string): Promise<string[]> {
  if (!paths.length) return [];
  const { rows } = await db.raw(
    `SELECT DISTINCT p.name FROM workflows w
       JOIN workflow_steps s ON s.workflow_id = w.id
       CROSS JOIN LATERAL (VALUES ${paths.map(() => '(CASE WHEN s.type = ? THEN s.config #>> ?::text[] END)').join(', ')}) AS p(name)
      WHERE w.project_id = ? AND p.name IS NOT NULL ${workflowId ? 'AND w.id = ?' : ''}`,
    [...paths.flatMap((p) => [p.type, [...p.path] as unknown as Knex.Value]), projectId, ...(workflowId ? [workflowId] : [])],
  );
  return (rows as { name: string }[]).map((r) => r.name).sort();
}

/** Top-level data keys of recent events of each name, typed by the contact data inference rule. */
export async function eventDataFields(db: Knex, projectId: string, names: string[]): Promise<EventFieldSet[]> {
  if (!names.length) return [];
  const { rows } = await db.raw(
    `SELECT n.name, e.data
       FROM unnest(?::text[]) AS n(name)
       CROSS JOIN LATERAL (
         SELECT data FROM events WHERE project_id = ? AND name = n.name ORDER BY created_at DESC LIMIT ?
       ) e`,
    [names, projectId, EVENT_SAMPLE],
  );
  const byName = new Map<string, Map<string, FieldType>>(names.map((n) => [n, new Map()]));
  for (const row of rows as { name: string; data: Record<string, unknown> }[]) {
    const keys = byName.get(row.name)!;
    // Rows come newest first: the first value seen of a key types it.
    for (const [key, value] of Object.entries(row.data ?? {})) if (!keys.has(key) && value !== null) keys.set(key, inferType(value));
  }
  return names.map((eventName) => ({
    eventName,
    field: `event.${eventName}`,
    data: [...byName.get(eventName)!.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([key, type]) => ({ key, field: `event.data.${key}`, type })),
  }));
}
