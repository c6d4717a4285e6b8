import type { Knex } from 'knex';
import { uuid } from '../lib/ids';
import type { FormField } from '../lib/formFields';

/** Signup forms (docs/forms.md; migration 050): what a form asks and what a submission does. */

export interface FormRow {
  id: string;
  project_id: string;
  name: string;
  fields: FormField[];
  /** Topic slugs a submission subscribes to. */
  topics: string[];
  /** null: the project's double opt-in settings decide. */
  double_opt_in: boolean | null;
  success_message: string | null;
  redirect_url: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface FormInput {
  name: string;
  fields: FormField[];
  topics: string[];
  doubleOptIn: boolean | null;
  successMessage: string | null;
  redirectUrl: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const columns = (f: Partial<FormInput>) => {
  const set: Record<string, unknown> = {};
  if (f.name !== undefined) set.name = f.name;
  if (f.fields !== undefined) set.fields = JSON.stringify(f.fields);
  if (f.topics !== undefined) set.topics = f.topics;
  if (f.doubleOptIn !== undefined) set.double_opt_in = f.doubleOptIn;
  if (f.successMessage !== undefined) set.success_message = f.successMessage;
  if (f.redirectUrl !== undefined) set.redirect_url = f.redirectUrl;
  return set;
};

export async function listForms(db: Knex, projectId: string): Promise<FormRow[]> {
  return db<FormRow>('forms')
    .where({ project_id: projectId })
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
}

export async function findForm(db: Knex, projectId: string, id: string): Promise<FormRow | undefined> {
  if (!UUID.test(id)) return undefined;
  return db<FormRow>('forms').where({ project_id: projectId, id }).first();
}

/** A form by its id alone: the public page and its submissions name no project. */
export async function findPublicForm(db: Knex, id: string): Promise<FormRow | undefined> {
  if (!UUID.test(id)) return undefined;
  return db<FormRow>('forms').where({ id }).first();
}

export async function createForm(db: Knex, projectId: string, input: FormInput): Promise<FormRow> {
  const [row] = await db<FormRow>('forms')
    .insert({ id: uuid(), project_id: projectId, ...columns(input) })
    .returning('*');
  return row;
}

export async function updateForm(db: Knex, projectId: string, id: string, patch: Partial<FormInput>): Promise<FormRow | undefined> {
  if (!UUID.test(id)) return undefined;
  const [row] = await db<FormRow>('forms')
    .where({ project_id: projectId, id })
    .update({ ...columns(patch), updated_at: db.fn.now() })
    .returning('*');
  return row;
}

export async function deleteForm(db: Knex, projectId: string, id: string): Promise<boolean> {
  if (!UUID.test(id)) return false;
  return (await db('forms').where({ project_id: projectId, id }).del()) > 0;
}
