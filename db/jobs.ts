import type { Knex } from 'knex';
import { uuid } from '../lib/ids';
import type { ImportRowProblem } from '../lib/importRowWords';

/**
 * Contact import and bulk jobs (docs/api.md, "Import and bulk jobs"). A job's input is staged in `job_rows` when it is
 * created; the bulkJob workflow then walks the rows in keyset order. Each batch applies its rows,
 * removes them from `job_rows` and moves the job's counters in one transaction, so a retried activity,
 * a restarted worker or a replayed workflow never applies a row twice.
 */

export const BULK_JOB_TYPES = ['BULK_SUBSCRIBE', 'BULK_UNSUBSCRIBE', 'BULK_DELETE'] as const;
export const JOB_TYPES = ['IMPORT', ...BULK_JOB_TYPES, 'EXPORT'] as const;
export type JobType = (typeof JOB_TYPES)[number];
export type BulkJobType = (typeof BULK_JOB_TYPES)[number];
export type JobStatus = 'QUEUED' | 'RUNNING' | 'COMPLETED' | 'FAILED';

export interface JobError {
  /** CSV record number, the header being record 1 (imports). */
  row?: number;
  /** The contact id the error is about (bulk jobs). */
  contactId?: string;
  message: string;
  /** An import row's problem as parts, composed again in each reader's language (api/presenters/jobs.ts); never in a response. */
  problem?: ImportRowProblem;
}

/** Only the first errors are kept: a file of 100,000 bad rows must not make a 100,000-entry job. */
const MAX_JOB_ERRORS = 100;

export interface JobRow {
  id: string;
  project_id: string;
  type: JobType;
  status: JobStatus;
  total: number;
  processed: number;
  succeeded: number;
  failed: number;
  errors: JobError[];
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

/** A staged CSV record: the contact to upsert, or why it cannot be (found when the file was read). */
export type ImportRowPayload = { email: string; subscribed?: boolean; data: Record<string, unknown> } | { error: string; problem?: ImportRowProblem };

/** A staged bulk-job row. */
export interface BulkRowPayload {
  contactId: string;
}

export interface StagedRow {
  rowNumber: number;
  payload: unknown;
}

export interface JobRowRecord<P = unknown> {
  row_number: number;
  payload: P;
}

const STAGE_BATCH = 5000;

/**
 * Creates a QUEUED job with its input rows in one transaction: an input that fails half way
 * (a malformed file) leaves nothing behind. `rows` may be a stream; it is inserted in batches.
 */
export async function createJob(db: Knex, input: { projectId: string; type: JobType; rows: Iterable<StagedRow> | AsyncIterable<StagedRow> }): Promise<JobRow> {
  return db.transaction(async (trx) => {
    const id = uuid();
    await trx('jobs').insert({ id, project_id: input.projectId, type: input.type });
    let pending: StagedRow[] = [];
    let total = 0;
    const flush = async () => {
      if (pending.length === 0) return;
      // One JSON text for the whole batch, split by Postgres: a fifth of the cost of a VALUES list
      // of 3 × 5,000 bindings that knex would build and Postgres parse.
      await trx.raw(
        `INSERT INTO job_rows (job_id, row_number, payload)
         SELECT ?::uuid, (?::int[])[t.n], t.payload FROM jsonb_array_elements(?::jsonb) WITH ORDINALITY AS t(payload, n)`,
        [id, pending.map((r) => r.rowNumber), JSON.stringify(pending.map((r) => r.payload))],
      );
      total += pending.length;
      pending = [];
    };
    for await (const row of input.rows) {
      pending.push(row);
      if (pending.length >= STAGE_BATCH) await flush();
    }
    await flush();
    const [job] = await trx<JobRow>('jobs').where({ id }).update({ total }).returning('*');
    return job;
  });
}

/** A job of the project, of one of `types`; anything else is "not found" to the caller. */
export async function findJob(db: Knex, projectId: string, id: string, types: readonly JobType[]): Promise<JobRow | undefined> {
  return db<JobRow>('jobs').where({ project_id: projectId, id }).whereIn('type', types).first();
}

/** Used when the job's workflow could not be started: an orphan QUEUED job would never move. */
export async function deleteJob(db: Knex, id: string): Promise<void> {
  await db('jobs').where({ id }).del();
}

export async function markJobRunning(db: Knex, id: string): Promise<void> {
  await db('jobs').where({ id, status: 'QUEUED' }).update({ status: 'RUNNING', started_at: db.fn.now() });
}

export type RowOutcome = { ok: true } | { ok: false; error: JobError };

export interface BatchResult {
  /** Row number to continue after. */
  last: number;
  /** false once no row is left after `last`. */
  more: boolean;
  /** The job's rows processed so far and its row count, for the workflow's `state` (absent in results recorded before). */
  processed?: number;
  total?: number;
}

/** What a batch's `apply` reports: one error per row that failed (the others succeeded). */
export type ApplyRows<P> = (trx: Knex.Transaction, job: JobRow, rows: JobRowRecord<P>[]) => Promise<JobError[]>;

/** A per-row applier as a batch one, rows in order (bulk and export jobs, whose rows are few and cheap). */
export function eachRow<P>(apply: (trx: Knex.Transaction, job: JobRow, row: JobRowRecord<P>) => Promise<RowOutcome>): ApplyRows<P> {
  return async (trx, job, rows) => {
    const errors: JobError[] = [];
    for (const row of rows) {
      const outcome = await apply(trx, job, row);
      if (!outcome.ok) errors.push(outcome.error);
    }
    return errors;
  };
}

/**
 * A batch's share of the job's rows: lane `lane` of `lanes` takes only the rows whose contact email
 * hashes to it, so lanes run side by side without ever touching the same contact (a contact named
 * twice stays in one lane, in row order). Rows without an email (staged with an error) go to lane 0.
 */
export interface BatchLane {
  lane: number;
  lanes: number;
}

const LANE_OF_ROW = "mod(hashtext(coalesce(payload->>'email', '')) & 2147483647, ?) = ?";

/**
 * Applies the next `limit` pending rows after row `after` (of its lane, when lanes are given) with
 * `apply`, which runs inside the batch transaction (so its writes commit with the rows' removal and
 * the counters, or not at all). A lane's batches are serialised by a transaction advisory lock, which
 * also makes a timed-out attempt still running finish before its retry takes rows; the job row is
 * only key-share locked, so other lanes run alongside and ending the job (finishJob, FOR UPDATE) waits
 * for them. The counters and the error list are added to in SQL, never from what the batch read
 * first, so two lanes never lose each other's figures. The rows are taken by deleting them: a row
 * applied once is gone for any retry, and the job's end has no staged input left to delete. (`done`
 * is still honoured: rows an earlier version flipped instead of removing are skipped.)
 */
export async function processJobBatch<P>(
  db: Knex,
  jobId: string,
  range: { after: number; limit: number } & Partial<BatchLane>,
  apply: ApplyRows<P>,
): Promise<BatchResult> {
  const lanes = range.lanes ?? 1;
  const lane = range.lane ?? 0;
  return db.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?), ?)', [`job:${jobId}`, lane]);
    const job = await trx<JobRow>('jobs').where({ id: jobId }).forKeyShare().first();
    if (job?.status !== 'RUNNING') return { last: range.after, more: false, processed: job?.processed, total: job?.total };
    const { rows: taken } = await trx.raw(
      `DELETE FROM job_rows
        WHERE job_id = ? AND row_number IN (
          SELECT row_number FROM job_rows WHERE job_id = ? AND NOT done AND row_number > ?${lanes > 1 ? ` AND ${LANE_OF_ROW}` : ''}
           ORDER BY row_number LIMIT ?)
        RETURNING row_number, payload`,
      [jobId, jobId, range.after, ...(lanes > 1 ? [lanes, lane] : []), range.limit],
    );
    const rows = (taken as JobRowRecord<P>[]).sort((a, b) => a.row_number - b.row_number);
    if (rows.length === 0) return { last: range.after, more: false, processed: job.processed, total: job.total };

    const errors = await apply(trx, job, rows);
    const last = rows[rows.length - 1].row_number;
    // The list keeps the first MAX_JOB_ERRORS by row whatever order lanes add them in; errors
    // without a row (bulk jobs' contact ids) keep the order they came in.
    const {
      rows: [counted],
    } = await trx.raw(
      `UPDATE jobs SET processed = processed + ?, succeeded = succeeded + ?, failed = failed + ?,
              errors = CASE WHEN ?::int = 0 THEN errors ELSE (
                SELECT coalesce(jsonb_agg(e ORDER BY (e->>'row')::int NULLS LAST, n), '[]'::jsonb)
                  FROM (SELECT e, n FROM jsonb_array_elements(errors || ?::jsonb) WITH ORDINALITY AS x(e, n)
                         ORDER BY (e->>'row')::int NULLS LAST, n LIMIT ?) kept) END
        WHERE id = ? RETURNING processed, total`,
      [rows.length, rows.length - errors.length, errors.length, errors.length, JSON.stringify(errors), MAX_JOB_ERRORS, jobId],
    );
    return { last, more: rows.length === range.limit, processed: Number(counted.processed), total: counted.total ?? job.total };
  });
}

/**
 * Ends a running job: COMPLETED, or FAILED with `failure` as its last error. Its staged input is
 * dropped (an import holds a whole contact list). A job already ended is left as it is.
 */
export async function finishJob(db: Knex, id: string, failure?: string): Promise<void> {
  await db.transaction(async (trx) => {
    const job = await trx<JobRow>('jobs').where({ id }).forUpdate().first();
    if (!job || job.status === 'COMPLETED' || job.status === 'FAILED') return;
    await trx('jobs')
      .where({ id })
      .update({
        status: failure === undefined ? 'COMPLETED' : 'FAILED',
        started_at: job.started_at ?? trx.fn.now(),
        finished_at: trx.fn.now(),
        ...(failure === undefined ? {} : { errors: JSON.stringify([...job.errors.slice(0, MAX_JOB_ERRORS - 1), { message: failure }]) }),
      });
    await trx('job_rows').where({ job_id: id }).del();
  });
}
