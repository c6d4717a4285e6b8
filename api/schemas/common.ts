import { z } from 'zod';
import { Email, Uuid } from '../../lib/formats';

/** The formats live in lib/formats.ts, where services check them too. */
export { Email, Uuid };
export const IdParams = z.object({ id: Uuid });

/** Page pagination (`page`, `pageSize`), shared by every page-paginated listing. */
export const PageQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(20),
});

export const Timestamp = z.string().describe('ISO 8601 timestamp (UTC)');

/** The message content templates and campaigns answer with (each adds its own `type` enum). */
export const MessageContentOut = {
  subject: z.string(),
  body: z.string(),
  text: z.string().nullable().describe('Liquid source of the text/plain part; null: generated from the rendered HTML body'),
  from: z.string(),
  fromName: z.string().nullable(),
  replyTo: z.string().nullable(),
};

/** What the router's multipart parser (formidable) hands over for an uploaded file. */
export interface UploadedFile {
  filepath: string;
  size: number;
}

const isUpload = (v: unknown): v is UploadedFile =>
  !!v && typeof v === 'object' && typeof (v as UploadedFile).filepath === 'string' && typeof (v as UploadedFile).size === 'number';

/**
 * A body of one uploaded file in the multipart field `file`. The router passes uploads as `files`;
 * lifting the part to `file` names it as the client sent it.
 */
export function singleFileBody<Extra extends z.ZodRawShape = Record<never, never>>(missing: string, description: string, extra?: Extra) {
  return z.preprocess(
    (raw) => {
      const r = (raw ?? {}) as Record<string, unknown> & { files?: Record<string, unknown> };
      return { ...Object.fromEntries(Object.keys(extra ?? {}).map((k) => [k, r[k]])), file: r.files?.file };
    },
    z.object({
      file: z.custom<UploadedFile>(isUpload, { error: missing }).meta({ type: 'string', format: 'binary', description }),
      ...((extra ?? {}) as Extra),
    }),
  );
}
