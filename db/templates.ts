import type { Knex } from 'knex';
import type { MessageContentColumns } from './messageContent';
import { StepPath, stepPathEquals } from './stepPaths';
import { whereAnyContains } from './search';
import { pageOf, ListingQuery } from './pages';
import { uuid } from '../lib/ids';
import { inTransaction } from './transaction';

export const TEMPLATE_TYPES = ['TRANSACTIONAL', 'MARKETING', 'HEADLESS'] as const;
export type TemplateType = (typeof TEMPLATE_TYPES)[number];

export const TEMPLATE_SORTS = ['name', 'createdAt', 'updatedAt'] as const;
export type TemplateSort = (typeof TEMPLATE_SORTS)[number];

export interface TemplateRow extends MessageContentColumns<TemplateType> {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The API's field names; every write goes through `toColumns` so the two spellings cannot drift. */
export interface TemplateFields {
  name: string;
  description?: string | null;
  subject: string;
  body: string;
  text?: string | null;
  from: string;
  fromName?: string | null;
  replyTo?: string | null;
  type?: TemplateType;
}

const COLUMNS: Record<keyof TemplateFields, keyof TemplateRow> = {
  name: 'name',
  description: 'description',
  subject: 'subject',
  body: 'body',
  text: 'text',
  from: 'from',
  fromName: 'from_name',
  replyTo: 'reply_to',
  type: 'type',
};

// Names sort as people read them, without upper case first.
const SORT_SQL: Record<TemplateSort, string> = { name: 'lower(name)', createdAt: 'created_at', updatedAt: 'updated_at' };

function toColumns(fields: Partial<TemplateFields>): Partial<TemplateRow> {
  const out: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(COLUMNS)) {
    const value = fields[key as keyof TemplateFields];
    if (value !== undefined) out[column] = value;
  }
  return out as Partial<TemplateRow>;
}

export interface ListTemplatesInput extends ListingQuery<TemplateSort> {
  type?: TemplateType;
}

export async function listTemplates(knex: Knex, projectId: string, input: ListTemplatesInput) {
  const filtered = () => {
    const q = knex<TemplateRow>('templates').where({ project_id: projectId });
    if (input.type) q.andWhere({ type: input.type });
    if (input.search) whereAnyContains(q, ['name', 'description', 'subject'], input.search);
    return q;
  };
  return pageOf<TemplateRow>(filtered, { page: input.page, pageSize: input.pageSize, orderSql: SORT_SQL[input.sort], dir: input.dir });
}

export async function findTemplate(knex: Knex, projectId: string, id: string): Promise<TemplateRow | undefined> {
  return knex<TemplateRow>('templates').where({ project_id: projectId, id }).first();
}

export async function createTemplate(knex: Knex, projectId: string, fields: TemplateFields): Promise<TemplateRow> {
  const [row] = await knex<TemplateRow>('templates')
    .insert({ id: uuid(), project_id: projectId, ...toColumns(fields) })
    .returning('*');
  return row;
}

/** null when the project has no such template. */
export async function updateTemplate(knex: Knex, projectId: string, id: string, patch: Partial<TemplateFields>): Promise<TemplateRow | null> {
  const [row] = await knex<TemplateRow>('templates')
    .where({ project_id: projectId, id })
    .update({ ...toColumns(patch), updated_at: knex.fn.now() as any })
    .returning('*');
  return row ?? null;
}

/*
 * "A template a workflow step sends cannot be deleted" holds under concurrency through one lock
 * order on the template row: a step write that names a template checks it with
 * referenceTemplate inside the write's transaction (FOR KEY SHARE, held until commit); a delete
 * locks the row FOR UPDATE, which waits for such writes, then looks for users with a fresh
 * snapshot (READ COMMITTED) that sees what they committed.
 */

/** Whether the project has the template; inside a transaction it also keeps it from being deleted until commit. */
export async function referenceTemplate(knex: Knex, projectId: string, id: string): Promise<boolean> {
  return !!(await knex('templates').where({ project_id: projectId, id }).forKeyShare().first('id'));
}

/** Deletes the template unless a workflow step sends it (then the steps are returned); null when there is no such template. */
export async function deleteTemplate(
  knex: Knex,
  projectId: string,
  id: string,
  senders: readonly StepPath[],
): Promise<{ deleted: true } | { usedBy: TemplateUsage['workflows'] } | null> {
  return inTransaction(knex, async (trx) => {
    if (!(await trx('templates').where({ project_id: projectId, id }).forUpdate().first('id'))) return null;
    const usage = await templateUsage(trx, projectId, id, senders);
    if (usage.workflows.length) return { usedBy: usage.workflows };
    await trx('templates').where({ id }).del();
    return { deleted: true as const };
  });
}

/** A copy under a new id, named "<name> (copy)"; null when the project has no such template. */
export async function duplicateTemplate(knex: Knex, projectId: string, id: string): Promise<TemplateRow | null> {
  const original = await findTemplate(knex, projectId, id);
  if (!original) return null;
  const { id: _id, created_at: _created, updated_at: _updated, ...copy } = original;
  const [row] = await knex<TemplateRow>('templates')
    .insert({ ...copy, id: uuid(), name: `${original.name} (copy)` })
    .returning('*');
  return row;
}

/**
 * Where a template is used: workflow steps whose config names it at a template path their type
 * declares (`senders`, from the step registry; steps carry the
 * workflow's name and step id). Campaigns carry their own subject and body (the spec gives them no
 * template reference), so that list is always empty.
 */
export interface TemplateUsage {
  campaigns: Array<{ id: string; name: string }>;
  workflows: Array<{ id: string; name: string; stepId: string }>;
}

export async function templateUsage(knex: Knex, projectId: string, templateId: string, senders: readonly StepPath[]): Promise<TemplateUsage> {
  const sends = stepPathEquals(senders, templateId);
  const steps = await knex('workflow_steps as s')
    .join('workflows as w', 'w.id', 's.workflow_id')
    .where('w.project_id', projectId)
    .whereRaw(sends.sql, sends.bindings)
    .orderBy([{ column: 'w.name' }, { column: 's.id' }])
    .select('w.id as id', 'w.name as name', 's.id as stepId');
  return { campaigns: [], workflows: steps };
}
