import { requestAuditor } from '../../services/audit';
import { recordAudit } from '../../db/auditLog';
import { Readable } from 'node:stream';
import type { z } from 'zod';
import { route } from '../route';
import { heavyReader } from '../../services/reads';
import type { AppContext } from '../context';
import { conflict, notFound, validationError } from '../errors';
import { ContactIdParams } from '../schemas/contacts';
import { JobAccepted, JobIdParams, JobOut } from '../schemas/contactJobs';
import { ContactRecordOut, EraseBody, ErasedOut, ExportCreate, ExportQuery } from '../schemas/contactPrivacy';
import { filterErrorToFieldError } from '../schemas/filters';
import { presentContactRecord } from '../presenters/contactRecord';
import { presentJob } from '../presenters/jobs';
import { eraseAddresses } from '../../services/erasure';
import { contactRecord, startContactExport } from '../../services/contactExport';
import { exportLines } from '../../db/contactExport';
import { findJob } from '../../db/jobs';
import { FilterError } from '../../db/filters';

/** Who asks for an erasure, for its audit entry: the dashboard's user or the secret key. */

const exportJob = async (ctx: AppContext, projectId: string, jobId: string) => {
  const job = await findJob(ctx.deps.knex, projectId, jobId, ['EXPORT']);
  if (!job) throw notFound('Job');
  return job;
};

// Before contacts.ts: `/contacts/erase` and `/contacts/export…` must not be taken for `/contacts/:id`.
/** Starts a CSV export job (its audit entry with it) and answers 202 with the job's id. */
async function queueExport(
  ctx: AppContext,
  projectId: string,
  filter: unknown,
  view?: { columns?: readonly string[]; search?: string },
): Promise<z.input<typeof JobAccepted>> {
  try {
    const job = await startContactExport(ctx.deps, projectId, filter, requestAuditor(ctx), view);
    ctx.status = 202;
    return { jobId: job.id };
  } catch (err) {
    if (err instanceof FilterError) throw validationError([filterErrorToFieldError(err, 'filter')], 'Invalid filter');
    throw err;
  }
}

export default [
  route({
    method: 'post',
    path: '/contacts/erase',
    audit: 'contact.erase',
    auth: 'secret',
    scope: 'contacts:write',
    tag: 'contacts',
    summary: 'Erase people by address everywhere in the project, contacts or not (suppressed addresses, former recipients)',
    body: EraseBody,
    responses: { 200: { description: 'erased', schema: ErasedOut } },
    async handler(ctx, { body, project }) {
      return await eraseAddresses(ctx.deps, project.id, body.emails, requestAuditor(ctx));
    },
  }),
  route({
    method: 'get',
    path: '/contacts/:id/export',
    audit: 'contact.export',
    auth: 'secret',
    scope: 'contacts:read',
    tag: 'contacts',
    resource: 'Contact',
    summary: 'Everything stored about one contact, as one JSON document: the contact, topics, consent record, events, emails, executions, inbound mail',
    params: ContactIdParams,
    responses: { 200: { description: "the contact's record", schema: ContactRecordOut } },
    async handler(ctx, { params, project }) {
      const record = await contactRecord(ctx.deps, project.id, params.id);
      if (!record) throw notFound('Contact');
      // A read, so no change to share a transaction with: the entry says who took a copy of the person's data.
      const who = requestAuditor(ctx);
      await recordAudit(ctx.deps.knex, { projectId: project.id, ...who, action: 'contact.export', target: { type: 'contact', id: params.id } });
      return presentContactRecord(record);
    },
  }),
  route({
    method: 'post',
    path: '/contacts/export',
    audit: 'contact.export',
    auth: 'secret',
    scope: 'contacts:read',
    tag: 'contacts',
    summary: "Export the project's contacts (all, or those matching a filter tree) as a CSV file (queued job)",
    body: ExportCreate,
    responses: { 202: { description: 'queued', schema: JobAccepted }, 422: { description: 'the filter tree does not compile' } },
    async handler(ctx, { body, project }) {
      return queueExport(ctx, project.id, body.filter, { columns: body.columns, search: body.search });
    },
  }),
  route({
    method: 'get',
    path: '/contacts/export',
    audit: 'contact.export',
    auth: 'secret',
    scope: 'contacts:read',
    tag: 'contacts',
    summary: 'The same export as POST /contacts/export, asked with a query string (format=csv, filter as JSON): answers 202 with the job to follow',
    query: ExportQuery,
    responses: { 202: { description: 'queued', schema: JobAccepted }, 422: { description: 'the filter tree does not compile' } },
    async handler(ctx, { query, project }) {
      return queueExport(ctx, project.id, query.filter);
    },
  }),
  route({
    method: 'get',
    path: '/contacts/export/:jobId',
    auth: 'secret',
    scope: 'contacts:read',
    tag: 'contacts',
    resource: 'Job',
    summary: 'Progress of a contact export',
    params: JobIdParams,
    responses: { 200: { description: 'the job and its progress', schema: JobOut } },
    async handler(ctx, { params, project }) {
      return presentJob(await exportJob(ctx, project.id, params.jobId));
    },
  }),
  route({
    method: 'get',
    path: '/contacts/export/:jobId/download',
    auth: 'secret',
    scope: 'contacts:read',
    tag: 'contacts',
    resource: 'Job',
    summary: 'The CSV file of a completed contact export (kept for a day after it finished)',
    params: JobIdParams,
    responses: { 200: { description: 'a header row, then one row per contact in id order', contentType: 'text/csv' } },
    async handler(ctx, { params, project }) {
      const job = await exportJob(ctx, project.id, params.jobId);
      if (job.status !== 'COMPLETED') throw conflict(`The export is ${job.status.toLowerCase()}: download it once it is completed`);
      ctx.type = 'text/csv; charset=utf-8';
      ctx.set('Content-Disposition', `attachment; filename="contacts-${job.id}.csv"`);
      // The worker wrote the file's lines: until a replica has surely replayed them, read the primary.
      ctx.body = Readable.from(exportLines(await heavyReader(ctx.deps, project.id, job.finished_at), job.id));
    },
  }),
];
