import fs from 'node:fs';
import type { z } from 'zod';
import { route, RouteDef } from '../route';
import type { AppContext } from '../context';
import { notFound, validationError } from '../errors';
import type { Knex } from 'knex';
import { BulkBody, ImportBody, ImportPreviewOut, JobAccepted, JobIdParams, JobOut, MAX_IMPORT_BYTES, PreviewBody } from '../schemas/contactJobs';
import { ImportFileError, importRows, previewImport } from '../../services/contactImport';
import { type FieldEntry, registerFields } from '../../db/fields';
import { BULK_JOB_TYPES, BulkJobType, createJob, deleteJob, findJob, JobType, StagedRow } from '../../db/jobs';
import { csvRecords } from '../../lib/csv';
import { startBulkJob } from '../../services/jobs';
import { presentJob } from '../presenters/jobs';
import { requestLanguage } from '../language';
import { audited, requestAuditor } from '../../services/audit';
import { type CompiledSelection, compileSelection, type ContactSelection, selectedContactIds } from '../../services/contactSelection';
import { FilterError } from '../../db/filters';
import { filterErrorToFieldError } from '../schemas/filters';
import type { AuditAction } from '../../db/auditLog';

/** Each job type's audit action: an import or bulk change of many contacts is one entry, naming the job. */
const JOB_AUDIT = {
  IMPORT: 'contact.import',
  BULK_SUBSCRIBE: 'contact.bulk_subscribe',
  BULK_UNSUBSCRIBE: 'contact.bulk_unsubscribe',
  BULK_DELETE: 'contact.bulk_delete',
} as const satisfies Record<Exclude<JobType, 'EXPORT'>, AuditAction>;

/**
 * Stages the job's rows with its audit entry (one transaction), starts its `bulkJob` workflow and
 * answers 202 with its id. A job Temporal could not start is deleted; its entry stays as the record
 * of who asked, as an export's does.
 */
async function enqueue(
  ctx: AppContext,
  projectId: string,
  type: keyof typeof JOB_AUDIT,
  rows: Iterable<StagedRow> | AsyncIterable<StagedRow>,
  afterStaging?: (trx: Knex.Transaction) => Promise<void>,
  details: Record<string, unknown> = {},
): Promise<z.input<typeof JobAccepted>> {
  const job = await audited(
    ctx.deps.knex,
    requestAuditor(ctx),
    async (trx) => {
      const staged = await createJob(trx, { projectId: projectId, type, rows });
      await afterStaging?.(trx);
      return staged;
    },
    (j) => ({ projectId, action: JOB_AUDIT[type], target: { type: 'job', id: j.id }, details: { contacts: j.total, ...details } }),
  );
  try {
    await startBulkJob(ctx.deps.temporal, { ...job, type }, ctx.deps.config.imports.lanes);
  } catch (err) {
    // Nothing would ever run it: better no job than one stuck QUEUED. The client may retry.
    await deleteJob(ctx.deps.knex, job.id);
    throw err;
  }
  ctx.status = 202;
  return { jobId: job.id };
}

function jobRoute(path: string, summary: string, types: readonly JobType[]): RouteDef {
  return route({
    method: 'get',
    path,
    auth: 'secret',
    scope: 'contacts:read',
    tag: 'contacts',
    resource: 'Job',
    summary,
    params: JobIdParams,
    responses: { 200: { description: 'the job and its progress', schema: JobOut } },
    async handler(ctx, { params, project }) {
      const job = await findJob(ctx.deps.knex, project.id, params.jobId, types);
      if (!job) throw notFound('Job');
      // An import's row errors are in the request's language: caches must key on it.
      ctx.vary('Accept-Language');
      return presentJob(job, requestLanguage(ctx));
    },
  });
}

/**
 * The rows of a bulk job over a selection: its contacts' ids, read page by page while the job is
 * staged (db/jobs createJob inserts them in batches in the job's transaction). The filter is
 * compiled first, so a tree that does not fit is a 422 before anything is written.
 */
async function matchingRows(ctx: AppContext, projectId: string, matching: ContactSelection): Promise<AsyncIterable<StagedRow>> {
  let selection: CompiledSelection;
  try {
    selection = await compileSelection(ctx.deps.knex, projectId, matching);
  } catch (err) {
    if (err instanceof FilterError) throw validationError([filterErrorToFieldError(err, 'matching.filter')], "The filter does not fit the project's fields");
    throw err;
  }
  return (async function* () {
    let rowNumber = 0;
    for await (const contactId of selectedContactIds(ctx.deps.knex, selection)) yield { rowNumber: ++rowNumber, payload: { contactId } };
  })();
}

/** A file that cannot be read as an import is the `file` field's 422, not a 500. */
async function asFileProblems<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ImportFileError) {
      throw validationError(
        err.problems.map((message) => ({ field: 'file', message, code: 'custom' })),
        'The CSV file cannot be imported',
      );
    }
    throw err;
  }
}

const BULK: Record<BulkJobType, { path: string; summary: string }> = {
  BULK_SUBSCRIBE: { path: '/contacts/bulk-subscribe', summary: 'Subscribe up to 1,000 contacts by id, or every contact `matching` a filter (queued job)' },
  BULK_UNSUBSCRIBE: {
    path: '/contacts/bulk-unsubscribe',
    summary: 'Unsubscribe up to 1,000 contacts by id, or every contact `matching` a filter (queued job)',
  },
  BULK_DELETE: { path: '/contacts/bulk-delete', summary: 'Delete up to 1,000 contacts by id, or every contact `matching` a filter (queued job)' },
};

export default [
  route({
    method: 'post',
    path: '/contacts/import',
    audit: 'contact.import',
    auth: 'secret',
    scope: 'contacts:write',
    tag: 'contacts',
    summary: 'Import contacts from a CSV file (queued job)',
    multipart: { maxFileSize: MAX_IMPORT_BYTES },
    body: ImportBody,
    responses: { 202: { description: 'queued', schema: JobAccepted } },
    async handler(ctx, { body, project }) {
      // The temporary file is removed by the router after the request (api/router.ts removeUploadsAfter).
      let declared: FieldEntry[] = [];
      const rows = importRows(csvRecords(fs.createReadStream(body.file.filepath)), body.mapping, (d) => {
        declared = d;
      });
      // The mapping's types are declared with the job, so a new field is typed as the person chose
      // even if its first stored value would infer another type (a text column of dates).
      return await asFileProblems(() => enqueue(ctx, project.id, 'IMPORT', rows, (trx) => registerFields(trx, project.id, declared)));
    },
  }),
  route({
    method: 'post',
    path: '/contacts/import/preview',
    auth: 'secret',
    scope: 'contacts:write',
    tag: 'contacts',
    summary: "The mapping step of an import: a CSV's header, first rows and each column's guessed type (nothing is stored)",
    multipart: { maxFileSize: MAX_IMPORT_BYTES },
    body: PreviewBody,
    responses: { 200: { description: 'the columns and first rows', schema: ImportPreviewOut } },
    async handler(_ctx, { body }) {
      return await asFileProblems(() => previewImport(csvRecords(fs.createReadStream(body.file.filepath))));
    },
  }),
  jobRoute('/contacts/import/:jobId', 'Progress of a contact import', ['IMPORT']),
  ...Object.entries(BULK).map(([type, { path, summary }]) =>
    route({
      method: 'post',
      path,
      audit: JOB_AUDIT[type as BulkJobType],
      auth: 'secret',
      scope: 'contacts:write',
      tag: 'contacts',
      summary,
      body: BulkBody,
      responses: { 202: { description: 'queued', schema: JobAccepted } },
      async handler(ctx, { body, project }) {
        if (body.matching)
          return enqueue(ctx, project.id, type as BulkJobType, await matchingRows(ctx, project.id, body.matching), undefined, { matching: true });
        // A repeated id would only fail its second time round ("not found" after a delete).
        const ids = [...new Set(body.contactIds)];
        return enqueue(
          ctx,
          project.id,
          type as BulkJobType,
          ids.map((contactId, i) => ({ rowNumber: i + 1, payload: { contactId } })),
        );
      },
    }),
  ),
  jobRoute('/contacts/bulk/:jobId', 'Progress of a bulk subscribe, unsubscribe or delete', BULK_JOB_TYPES),
];
