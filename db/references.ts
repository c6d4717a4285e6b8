import type { Knex } from 'knex';
import { StepPath, stepPathEquals, stepPathHas } from './stepPaths';

/**
 * Where a contact field or an event name is referenced: segment conditions, campaign audience
 * conditions and workflow step configs (filter trees anywhere in a config; the event names and
 * contact fields step types declare, as `StepPath`s from the registry) and triggers. Read-only; the owners of those tables keep writing them. Any of the tables may be absent
 * on an older schema, in which case its list is empty (the probes below are also used by db/activity).
 */

export interface NamedRef {
  id: string;
  name: string;
}

export type WorkflowEventRef = NamedRef & { references: Array<'trigger' | 'waitForEvent' | 'condition'> };

// Filter nodes anywhere in a tree (groups, nested `conditions`) whose `field` is $f, or, with
// FIELD_OR_NESTED, a path beneath it ($p = "$f."): a filter on `data.profile.tier` uses `data.profile`.
// The field arrives as a jsonpath variable, never spliced into the path text.
// `\\?` is knex's escape for a literal "?" (the jsonpath filter), which it would take for a binding.
const FIELD_EXACT = `'$.** \\? (@.field == $f)'`;
const FIELD_OR_NESTED = `'$.** \\? (@.field == $f || @.field starts with $p)'`;
const fieldVars = `jsonb_build_object('f', ?::text, 'p', ?::text)`;

function treeMatch(column: string, field: string, nested: boolean) {
  return {
    sql: `jsonb_path_exists(${column}, ${nested ? FIELD_OR_NESTED : FIELD_EXACT}, ${fieldVars})`,
    bindings: [field, `${field}.`],
  };
}

/** Rows of a project's table (segments, campaigns) whose filter tree in `column` references the field. */
async function treeReferences(db: Knex, table: string, column: string, projectId: string, field: string, nested: boolean): Promise<NamedRef[]> {
  const match = treeMatch(column, field, nested);
  return db(table)
    .where('project_id', projectId)
    .whereNotNull(column)
    .whereRaw(match.sql, match.bindings)
    .orderBy([{ column: 'name' }, { column: 'id' }])
    .select('id', 'name');
}

export interface FieldReferences {
  segments: NamedRef[];
  campaigns: NamedRef[];
  workflows: NamedRef[];
}

/**
 * References to a contact field: `email`, `subscribed`, `createdAt`, `updatedAt` or `data.<path>`.
 * For a data field, steps that write it count too (`writers`: where step types keep a data patch).
 */
export async function fieldReferences(db: Knex, projectId: string, field: string, writers: readonly StepPath[]): Promise<FieldReferences> {
  const dataPath = field.startsWith('data.') ? field.slice(5) : null;
  const nested = dataPath !== null;
  const stepMatch = treeMatch('s.config', field, nested);
  const workflows = async (): Promise<NamedRef[]> => {
    const writes = dataPath === null ? { sql: 'false', bindings: [] } : stepPathHas(writers, dataPath);
    return db({ w: 'workflows' })
      .where('w.project_id', projectId)
      .whereExists(
        db({ s: 'workflow_steps' })
          .whereRaw('s.workflow_id = w.id')
          .andWhereRaw(`(${stepMatch.sql} OR ${writes.sql})`, [...stepMatch.bindings, ...writes.bindings])
          .select(db.raw('1')),
      )
      .orderBy([{ column: 'w.name' }, { column: 'w.id' }])
      .select('w.id', 'w.name');
  };
  const [segments, campaigns, flows] = await Promise.all([
    treeReferences(db, 'segments', 'condition', projectId, field, nested),
    treeReferences(db, 'campaigns', 'audience_condition', projectId, field, nested),
    workflows(),
  ]);
  return { segments, campaigns, workflows: flows };
}

export interface EventReferences {
  segments: NamedRef[];
  campaigns: NamedRef[];
  workflows: WorkflowEventRef[];
}

/**
 * References to an event name: `event.<name>` filters, workflow triggers, and steps that wait for
 * it (`waiters`: where step types other than the trigger keep an event name).
 */
export async function eventReferences(db: Knex, projectId: string, name: string, waiters: readonly StepPath[]): Promise<EventReferences> {
  const field = `event.${name}`;
  const workflows = async (): Promise<WorkflowEventRef[]> => {
    const cond = treeMatch('s.config', field, false);
    const wait = stepPathEquals(waiters, name);
    const { rows } = await db.raw(
      `SELECT id, name, trigger, wait, condition FROM (
         SELECT w.id, w.name,
                coalesce(w.trigger_config->>'eventName' = ?, false) AS trigger,
                EXISTS (SELECT 1 FROM workflow_steps s WHERE s.workflow_id = w.id AND ${wait.sql}) AS wait,
                EXISTS (SELECT 1 FROM workflow_steps s WHERE s.workflow_id = w.id AND ${cond.sql}) AS condition
           FROM workflows w WHERE w.project_id = ?
       ) r
       WHERE trigger OR wait OR condition
       ORDER BY name, id`,
      [name, ...wait.bindings, ...cond.bindings, projectId],
    );
    return rows.map((r: { id: string; name: string; trigger: boolean; wait: boolean; condition: boolean }) => ({
      id: r.id,
      name: r.name,
      references: [...(r.trigger ? ['trigger' as const] : []), ...(r.wait ? ['waitForEvent' as const] : []), ...(r.condition ? ['condition' as const] : [])],
    }));
  };
  const [segments, campaigns, flows] = await Promise.all([
    treeReferences(db, 'segments', 'condition', projectId, field, false),
    treeReferences(db, 'campaigns', 'audience_condition', projectId, field, false),
    workflows(),
  ]);
  return { segments, campaigns, workflows: flows };
}
