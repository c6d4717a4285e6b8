import { z } from 'zod';
import { Timestamp, Uuid, singleFileBody } from './common';
import { JOB_TYPES } from '../../db/jobs';
import { ContactSelection } from './contactSearch';

/** Spec limits: CSV import 5 MB, bulk operations 1,000 contact ids. */
export const MAX_IMPORT_BYTES = 5 * 1024 * 1024;
const MAX_BULK_IDS = 1000;

export const ImportBody = singleFileBody(
  'a CSV file is required in the multipart field "file"',
  'CSV with a header row: `email` (required), `subscribed` (optional), any other column goes to `data`',
);

/**
 * Either the contacts by id (up to 1,000), or `matching`: every contact a filter tree and search
 * select, however many (staged server-side in pages). `matching: {}` means every contact: said
 * explicitly, so that a body missing its ids never reaches the whole project.
 */
export const BulkBody = z
  .object({
    contactIds: z.array(z.string().min(1).max(255)).min(1).max(MAX_BULK_IDS).optional(),
    matching: ContactSelection.optional().describe('instead of contactIds: every contact matching this filter tree and search, no limit'),
  })
  .superRefine((b, ctx) => {
    if ((b.contactIds === undefined) === (b.matching === undefined))
      ctx.addIssue({ code: 'custom', path: ['contactIds'], message: 'give either contactIds or matching, not both' });
  });

export const JobIdParams = z.object({ jobId: Uuid });

export const JobAccepted = z.object({ jobId: z.string() });

export const JobOut = z.object({
  id: z.string(),
  type: z.enum(JOB_TYPES),
  status: z.enum(['QUEUED', 'RUNNING', 'COMPLETED', 'FAILED']),
  total: z.number().int(),
  processed: z.number().int(),
  succeeded: z.number().int(),
  failed: z.number().int(),
  errors: z
    .array(z.object({ row: z.number().int().optional(), contactId: z.string().optional(), message: z.string() }))
    .describe('the first 100 errors; `row` counts CSV records with the header as record 1'),
  createdAt: Timestamp,
  startedAt: Timestamp.nullable(),
  finishedAt: Timestamp.nullable(),
});
