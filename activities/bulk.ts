import { Context } from '@temporalio/activity';
import type { Knex } from 'knex';
import type { ActivityDeps } from './deps';
import { deleteContact, updateContact } from '../db/contactWriters';
import { type BatchContact, upsertContacts } from '../db/contactBatchWriter';
import type { EventRow } from '../db/events';
import {
  ApplyRows,
  BatchResult,
  BulkRowPayload,
  eachRow,
  finishJob,
  ImportRowPayload,
  JobError,
  JobRow,
  JobRowRecord,
  markJobRunning,
  processJobBatch,
  RowOutcome,
} from '../db/jobs';
import { writeExportLine } from '../db/contactExport';

export interface JobBatchInput {
  jobId: string;
  /** Row number the previous batch ended at (0 to begin). */
  after: number;
  limit: number;
  /** This batch's lane of `lanes` (imports: rows by their email's hash; absent: the job's every row). */
  lane?: number;
  lanes?: number;
}

const OK: RowOutcome = { ok: true };
const NOT_FOUND = 'Contact not found';

/**
 * An import batch as one set-based write (db/contactBatchWriter): the rows staged with an error
 * (a bad email, a cell that does not fit its column's type) are row errors naming their row, the
 * others are upserted together, inside the batch transaction.
 */
async function applyImport(trx: Knex.Transaction, job: JobRow, rows: JobRowRecord<ImportRowPayload>[], events: EventRow[]): Promise<JobError[]> {
  const errors: JobError[] = [];
  const contacts: BatchContact[] = [];
  const rowOf: number[] = [];
  for (const { row_number, payload: p } of rows) {
    // The problem's parts travel with its English message (rows staged before they were kept have none).
    if ('error' in p) errors.push({ row: row_number, message: p.error, ...(p.problem ? { problem: p.problem } : {}) });
    else {
      contacts.push(p);
      rowOf.push(row_number);
    }
  }
  const written = await upsertContacts(trx, { projectId: job.project_id, contacts, defaultSubscribed: true, source: 'import' });
  events.push(...written.events);
  errors.push(...written.errors.map((e) => ({ row: rowOf[e.index], message: e.message })));
  // The job's errors read in row order, as a person walks the file.
  return errors.sort((a, b) => a.row! - b.row!);
}

/** One staged row of a bulk or export job, inside the batch transaction. */
async function applyRow(trx: Knex.Transaction, job: JobRow, row: JobRowRecord, events: EventRow[]): Promise<RowOutcome> {
  const projectId = job.project_id;
  if (job.type === 'EXPORT') return writeExportLine(trx, job, row as JobRowRecord<BulkRowPayload>);
  const { contactId } = row.payload as BulkRowPayload;
  const notFound: RowOutcome = { ok: false, error: { contactId, message: NOT_FOUND } };
  if (job.type === 'BULK_DELETE') return (await deleteContact(trx, projectId, contactId)) ? OK : notFound;
  const r = await updateContact(trx, { projectId, contactId, subscribed: job.type === 'BULK_SUBSCRIBE', source: 'bulk' });
  if (!r) return notFound;
  events.push(...r.events);
  return OK;
}

/**
 * Subscription changes trigger workflows like any other event, so they are handed over once their
 * batch has committed, as one routeEventBatch (services/events.ts). A failed hand-off leaves the
 * event for the maintenance sweep rather than failing a batch that can no longer be undone.
 */
async function routeCommitted(deps: ActivityDeps, events: EventRow[]): Promise<void> {
  // One routeEventBatch for the batch's events (a bulk unsubscribe of 2,500 contacts is 2,500
  // events): one start per event crowded the worker's workflow slots and starved the job itself.
  await deps.runtime.events.handOff(events, { batch: true, context: { source: 'contact job' } });
}

/** The steps of the `bulkJob` workflow; each is idempotent (see db/jobs). */
export function bulkActivities(deps: ActivityDeps) {
  return {
    async markJobRunning(jobId: string): Promise<void> {
      await markJobRunning(deps.knex, jobId);
    },

    async applyJobBatch(input: JobBatchInput): Promise<BatchResult> {
      const ctx = Context.current();
      const events: EventRow[] = [];
      const perRow = eachRow((trx, job, row) => {
        ctx.heartbeat();
        return applyRow(trx, job, row, events);
      });
      const apply: ApplyRows<unknown> = (trx, job, rows) =>
        job.type === 'IMPORT' ? applyImport(trx, job, rows as JobRowRecord<ImportRowPayload>[], events) : perRow(trx, job, rows);
      ctx.heartbeat();
      const result = await processJobBatch(deps.knex, input.jobId, input, apply);
      await routeCommitted(deps, events);
      return result;
    },

    async completeJob(jobId: string): Promise<void> {
      await finishJob(deps.knex, jobId);
    },

    async failJob(jobId: string, message: string): Promise<void> {
      await finishJob(deps.knex, jobId, message);
    },
  };
}
