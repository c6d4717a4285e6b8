import type { Knex } from 'knex';
import type { TemporalGateway } from './temporal';
import { startBulkJob } from './jobs';
import { findContact, type ContactRow } from '../db/contactReaders';
import { contactTopicMap } from '../db/topics';
import { isPending } from '../db/doubleOptIn';
import { compileFilter, loadFieldTypes } from '../db/filters';
import { contactRecordRows, createExportJob, type ContactRecordRows } from '../db/contactExport';
import { deleteJob, type JobRow } from '../db/jobs';
import { audited, type AuditWho } from './audit';
import { compileSelection, selectedContactIds } from './contactSelection';

/**
 * Exports (docs/privacy.md "Export"): the whole record of one person as one document, and the CSV
 * export of a project's contacts as a job run by the bulkJob workflow (`job-<id>`), like imports.
 */

interface Deps {
  knex: Knex;
  temporal: TemporalGateway;
}

export interface ContactRecord extends ContactRecordRows {
  contact: ContactRow;
  topics: Record<string, boolean>;
  pending: boolean;
}

/** Everything the project stores about one of its contacts; undefined when it has no such contact. */
export async function contactRecord(deps: Deps, projectId: string, contactId: string): Promise<ContactRecord | undefined> {
  const contact = await findContact(deps.knex, projectId, contactId);
  if (!contact) return undefined;
  const [topics, pending, rows] = await Promise.all([
    contactTopicMap(deps.knex, projectId, contactId),
    isPending(deps.knex, contactId),
    contactRecordRows(deps.knex, projectId, contactId),
  ]);
  return { contact, topics, pending, ...rows };
}

/**
 * Stages and starts a CSV export of the project's contacts (those matching `filter`, else all).
 * A filter the project's fields cannot compile throws the compiler's FilterError before anything is
 * written. The job and its audit entry (`contact.export`, naming the job) commit together, so no
 * export runs unrecorded. If the workflow cannot be started the job is deleted (better none than
 * one stuck QUEUED); its entry stays, as the record of who asked for the copy.
 */
export async function startContactExport(
  deps: Deps,
  projectId: string,
  filter: unknown,
  who: AuditWho,
  view: { columns?: readonly string[]; search?: string } = {},
): Promise<JobRow> {
  let compiled: { tree: unknown; fieldTypes: Awaited<ReturnType<typeof loadFieldTypes>> } | null = null;
  if (filter !== undefined) {
    const fieldTypes = await loadFieldTypes(deps.knex, projectId);
    compileFilter(filter, { fieldTypes });
    compiled = { tree: filter, fieldTypes };
  }
  // With a search, the rows are those the contacts list shows (the same query); without, one INSERT … SELECT.
  const selection = view.search ? await compileSelection(deps.knex, projectId, { filter, search: view.search }) : undefined;
  const job = await audited(
    deps.knex,
    who,
    (trx) => createExportJob(trx, projectId, compiled, view.columns, selection && selectedContactIds(deps.knex, selection)),
    (created) => ({ projectId, action: 'contact.export', target: { type: 'job', id: created.id }, details: { filtered: compiled !== null || !!selection } }),
  );
  try {
    await startBulkJob(deps.temporal, job);
  } catch (err) {
    await deleteJob(deps.knex, job.id);
    throw err;
  }
  return job;
}
