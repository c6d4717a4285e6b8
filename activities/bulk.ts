import { Context } from '@temporalio/activity';
import type { Knex } from 'knex';
import type { ActivityDeps } from './deps';
import { ContactDataError } from '../lib/contactData';
import { deleteContact, updateContact, upsertContact } from '../db/contactWriters';
import type { EventRow } from '../db/events';
import { BatchResult, BulkRowPayload, finishJob, ImportRowPayload, JobRow, JobRowRecord, markJobRunning, processJobBatch, RowOutcome } from '../db/jobs';
import { writeExportLine } from '../db/contactExport';

export interface JobBatchInput {
  jobId: string;
  /** Row number the previous batch ended at (0 to begin). */
  after: number;
  limit: number;
}

const OK: RowOutcome = { ok: true };
const NOT_FOUND = 'Contact not found';

/** One staged row through the contact writers of db/contactWriters, inside the batch transaction. */
async function applyRow(trx: Knex.Transaction, job: JobRow, row: JobRowRecord, events: EventRow[]): Promise<RowOutcome> {
  const projectId = job.project_id;
  if (job.type === 'IMPORT') {
    const p = row.payload as ImportRowPayload;
    if ('error' in p) return { ok: false, error: { row: row.row_number, message: p.error } };
    try {
      const r = await upsertContact(trx, { projectId, email: p.email, subscribed: p.subscribed, data: p.data, defaultSubscribed: true, source: 'import' });
      events.push(...r.events);
      return OK;
    } catch (err) {
      // Raised before any SQL, so the batch transaction is still usable.
      if (err instanceof ContactDataError) return { ok: false, error: { row: row.row_number, message: err.message } };
      throw err;
    }
  }
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
 * batch has committed (heartbeating: a batch may carry hundreds). A failed hand-off leaves the
 * event for the maintenance sweep rather than failing a batch that can no longer be undone.
 */
async function routeCommitted(deps: ActivityDeps, events: EventRow[]): Promise<void> {
  const ctx = Context.current();
  for (const e of events) {
    ctx.heartbeat();
    await deps.runtime.events.handOff([e]);
  }
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
      const result = await processJobBatch(deps.knex, input.jobId, input, (trx, job, row) => {
        ctx.heartbeat();
        return applyRow(trx, job, row, events);
      });
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
