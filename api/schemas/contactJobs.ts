import { z } from 'zod';
import { Timestamp, Uuid, singleFileBody } from './common';
import { JOB_TYPES } from '../../db/jobs';
import { FIELD_TYPES } from '../../lib/contactData';

/** Spec limits: CSV import 5 MB, bulk operations 1,000 contact ids. */
export const MAX_IMPORT_BYTES = 5 * 1024 * 1024;
const MAX_BULK_IDS = 1000;

const ColumnMapping = z.object({
  column: z.string().min(1).max(200).describe("the column's name in the header row"),
  key: z.string().min(1).max(100).optional().describe('`email`, `subscribed` or the data key it goes to; default: the column name'),
  type: z.enum(FIELD_TYPES).optional().describe('how the cells are stored (data columns); default `string`, as without a mapping'),
  skip: z.boolean().optional().describe('leave the column out'),
});

/** A multipart form field is text: the mapping arrives as JSON and is checked like any body. */
const MappingField = z
  .string()
  .max(100_000)
  .transform((s, ctx) => {
    try {
      return JSON.parse(s) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'mapping must be a JSON array of column mappings' });
      return z.NEVER;
    }
  })
  .pipe(z.array(ColumnMapping).max(500))
  .describe(
    'JSON array: per column `{ column, key?, type?, skip? }`. Columns it does not name are imported as without a mapping. A typed cell that does not fit is a row error naming the column; each typed data key is registered with its type if new',
  );

export const ImportBody = singleFileBody(
  'a CSV file is required in the multipart field "file"',
  'CSV with a header row: `email` (required), `subscribed` (optional), any other column goes to `data`',
  { mapping: MappingField.optional() },
);

export const PreviewBody = singleFileBody(
  'a CSV file is required in the multipart field "file"',
  'the CSV file to be imported (only its first records are read)',
);

export const ImportPreviewOut = z.object({
  columns: z.array(
    z.object({
      column: z.string(),
      key: z.string().describe('suggested key: `email`, `subscribed` or the column name'),
      type: z.enum(FIELD_TYPES).describe('guessed from the first 200 records: number, boolean or date when every non-empty value fits, else string'),
      samples: z.array(z.string()),
    }),
  ),
  rows: z.array(z.array(z.string())).describe('the first 5 records after the header'),
});

export const BulkBody = z.object({
  contactIds: z.array(z.string().min(1).max(255)).min(1).max(MAX_BULK_IDS),
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
