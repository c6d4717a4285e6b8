import { z } from 'zod';
import { Uuid } from './common';
import { STORED_NAME } from '../../lib/storage';

/** Spec-free choice (docs/api.md): images up to 5 MB. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** What the router's multipart parser (formidable) hands over for an uploaded file. */
interface UploadedFile {
  filepath: string;
  size: number;
}

const isUpload = (v: unknown): v is UploadedFile =>
  !!v && typeof v === 'object' && typeof (v as UploadedFile).filepath === 'string' && typeof (v as UploadedFile).size === 'number';

// The router passes uploads as `files`; lifting the part to `file` names it as the client sent it.
export const ImageUploadBody = z.preprocess(
  (raw) => ({ file: (raw as { files?: Record<string, unknown> } | null)?.files?.file }),
  z.object({
    file: z
      .custom<UploadedFile>(isUpload, { error: 'an image is required in the multipart field "file"' })
      .meta({ type: 'string', format: 'binary', description: 'PNG, JPEG, GIF or WebP, at most 5 MB' }),
  }),
);

export const UploadOut = z.object({ url: z.string(), size: z.number().int(), contentType: z.string() });

export const ServedImageParams = z.object({ project: Uuid, file: z.string().regex(STORED_NAME) });
