import type { Knex } from 'knex';
import type { MessageContentColumns } from './messageContent';
import { StepPath, stepPathEquals } from './stepPaths';
import { whereAnyContains } from './search';
import { pageOf, ListingQuery } from './pages';
import { uuid } from '../lib/ids';
import { inTransaction } from './transaction';
import type { EmailDocument } from '../lib/emailDocument';
import type { TemplateContent, VariantContent } from '../lib/templateContent';

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
  editor: 'html' | 'blocks';
  document: EmailDocument | null;
  compiled_text: string | null;
  variants: Record<string, VariantContent> | null;
  published_version: number;
  draft: TemplateContent | null;
  draft_updated_at: Date | null;
}

/** The published content of a template row (its versioned part). */
export function publishedContent(row: TemplateRow): TemplateContent {
  return {
    subject: row.subject,
    editor: row.editor ?? 'html',
    body: row.body,
    document: row.document ?? null,
    text: row.text ?? null,
    compiledText: row.compiled_text ?? null,
    variants: row.variants ?? null,
  };
}

/** The columns the published content lives in. */
function contentColumns(c: TemplateContent): Partial<TemplateRow> {
  return {
    subject: c.subject,
    editor: c.editor,
    body: c.body,
    document: c.document === null ? null : (JSON.stringify(c.document) as any),
    text: c.text,
    compiled_text: c.compiledText,
    variants: c.variants === null ? null : (JSON.stringify(c.variants) as any),
  };
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

/** Template fields that are not versioned content. */
export type TemplateMeta = Omit<TemplateFields, 'subject' | 'body' | 'text'>;

async function insertVersion(knex: Knex, row: TemplateRow, content: TemplateContent, createdBy: string | null, note: string | null = null) {
  await knex('template_versions').insert({
    template_id: row.id,
    project_id: row.project_id,
    number: row.published_version,
    content: JSON.stringify(content),
    created_by: createdBy,
    note,
  });
}

/** A new template whose content is published at once, as version 1. */
export async function createTemplate(
  knex: Knex,
  projectId: string,
  meta: TemplateMeta,
  content: TemplateContent,
  createdBy: string | null = null,
): Promise<TemplateRow> {
  return inTransaction(knex, async (trx) => {
    const [row] = await trx<TemplateRow>('templates')
      .insert({ id: uuid(), project_id: projectId, ...toColumns(meta), ...contentColumns(content), published_version: 1 })
      .returning('*');
    await insertVersion(trx, row, content, createdBy);
    return row;
  });
}

/**
 * Changes a template's other fields and, given `content`, publishes it at once as a new version
 * (PATCH /templates/:id stays what it always was: the change is live). null when there is no such template.
 */
export async function updateTemplate(
  knex: Knex,
  projectId: string,
  id: string,
  meta: Partial<TemplateMeta>,
  content?: TemplateContent,
  createdBy: string | null = null,
): Promise<TemplateRow | null> {
  return inTransaction(knex, async (trx) => {
    const bump = content ? { ...contentColumns(content), published_version: trx.raw('published_version + 1') as any } : {};
    const [row] = await trx<TemplateRow>('templates')
      .where({ project_id: projectId, id })
      .update({ ...toColumns(meta), ...bump, updated_at: trx.fn.now() as any })
      .returning('*');
    if (row && content) await insertVersion(trx, row, content, createdBy);
    return row ?? null;
  });
}

/** Saves the unpublished draft; null when there is no such template. */
export async function saveDraft(knex: Knex, projectId: string, id: string, draft: TemplateContent | null): Promise<TemplateRow | null> {
  const [row] = await knex<TemplateRow>('templates')
    .where({ project_id: projectId, id })
    .update({ draft: draft === null ? null : (JSON.stringify(draft) as any), draft_updated_at: draft === null ? null : (knex.fn.now() as any) })
    .returning('*');
  return row ?? null;
}

/** Publishes `content` (the draft, compiled again) as the next version and clears the draft; null when there is no such template. */
export async function publishContent(
  knex: Knex,
  projectId: string,
  id: string,
  content: TemplateContent,
  createdBy: string | null,
  note: string | null,
): Promise<TemplateRow | null> {
  return inTransaction(knex, async (trx) => {
    const [row] = await trx<TemplateRow>('templates')
      .where({ project_id: projectId, id })
      .update({
        ...contentColumns(content),
        published_version: trx.raw('published_version + 1') as any,
        draft: null,
        draft_updated_at: null,
        updated_at: trx.fn.now() as any,
      })
      .returning('*');
    if (row) await insertVersion(trx, row, content, createdBy, note);
    return row ?? null;
  });
}

export interface TemplateVersionRow {
  number: number;
  content: TemplateContent;
  note: string | null;
  created_at: Date;
  created_by: string | null;
  user_name: string | null;
  user_email: string | null;
}

const versionColumns = ['v.number', 'v.content', 'v.note', 'v.created_at', 'v.created_by', 'u.name as user_name', 'u.email as user_email'];

/** Published versions, newest first. */
export async function listVersions(knex: Knex, projectId: string, templateId: string): Promise<TemplateVersionRow[]> {
  return knex('template_versions as v')
    .leftJoin('users as u', 'u.id', 'v.created_by')
    .where({ 'v.project_id': projectId, 'v.template_id': templateId })
    .orderBy('v.number', 'desc')
    .select(versionColumns);
}

export async function findVersion(knex: Knex, projectId: string, templateId: string, number: number): Promise<TemplateVersionRow | undefined> {
  return knex('template_versions as v')
    .leftJoin('users as u', 'u.id', 'v.created_by')
    .where({ 'v.project_id': projectId, 'v.template_id': templateId, 'v.number': number })
    .first(versionColumns);
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
  const { id: _id, created_at: _created, updated_at: _updated, draft: _draft, draft_updated_at: _drafted, published_version: _n, ...copy } = original;
  return inTransaction(knex, async (trx) => {
    const [row] = await trx<TemplateRow>('templates')
      .insert({
        ...copy,
        ...contentColumns(publishedContent(original)),
        id: uuid(),
        name: `${original.name} (copy)`,
        published_version: 1,
      })
      .returning('*');
    // The copy starts its own history with the content it was copied with.
    await insertVersion(trx, row, publishedContent(original), null);
    return row;
  });
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
