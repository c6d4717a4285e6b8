import type { Knex } from 'knex';
import { uuid } from '../lib/ids';
import { DomainError } from '../lib/domainErrors';

/** Saved views of the contacts list (migration 067): a filter tree, a search and columns, shared by the project. */

export interface ContactViewRow {
  id: string;
  project_id: string;
  name: string;
  filter: unknown | null;
  search: string | null;
  columns: string[];
  created_at: Date;
  updated_at: Date;
}

export interface ContactViewFields {
  name: string;
  filter?: unknown | null;
  search?: string | null;
  columns?: string[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const nameTaken = (name: string) => new DomainError('conflict', `Another view of this project is named "${name}"`, 'name');
const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === '23505';

/** jsonb columns are written as JSON text: knex would send a JS array as a Postgres array. */
function columnsOf(fields: Partial<ContactViewFields>): Record<string, unknown> {
  const set: Record<string, unknown> = {};
  if (fields.name !== undefined) set.name = fields.name;
  if (fields.filter !== undefined) set.filter = fields.filter === null ? null : JSON.stringify(fields.filter);
  if (fields.search !== undefined) set.search = fields.search || null;
  if (fields.columns !== undefined) set.columns = JSON.stringify(fields.columns);
  return set;
}

export async function listContactViews(db: Knex, projectId: string): Promise<ContactViewRow[]> {
  return db<ContactViewRow>('contact_views')
    .where({ project_id: projectId })
    .orderBy([{ column: 'name' }, { column: 'id' }]);
}

export async function createContactView(db: Knex, projectId: string, fields: ContactViewFields): Promise<ContactViewRow> {
  const [row] = await db<ContactViewRow>('contact_views')
    .insert({ id: uuid(), project_id: projectId, ...columnsOf(fields) })
    .onConflict(['project_id', 'name'])
    .ignore()
    .returning('*');
  if (!row) throw nameTaken(fields.name);
  return row;
}

/** undefined when the project has no such view. */
export async function updateContactView(db: Knex, projectId: string, id: string, patch: Partial<ContactViewFields>): Promise<ContactViewRow | undefined> {
  if (!UUID.test(id)) return undefined;
  try {
    const [row] = await db<ContactViewRow>('contact_views')
      .where({ project_id: projectId, id })
      .update({ ...columnsOf(patch), updated_at: db.fn.now() })
      .returning('*');
    return row;
  } catch (err) {
    if (isUniqueViolation(err) && patch.name !== undefined) throw nameTaken(patch.name);
    throw err;
  }
}

export async function deleteContactView(db: Knex, projectId: string, id: string): Promise<boolean> {
  if (!UUID.test(id)) return false;
  return (await db('contact_views').where({ project_id: projectId, id }).del()) > 0;
}
