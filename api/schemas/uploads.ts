import { z } from 'zod';
import { Uuid, singleFileBody } from './common';
import { STORED_NAME } from '../../lib/storage';

/** Spec-free choice (docs/api.md): images up to 5 MB. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

export const ImageUploadBody = singleFileBody('an image is required in the multipart field "file"', 'PNG, JPEG, GIF or WebP, at most 5 MB');

export const UploadOut = z.object({ url: z.string(), size: z.number().int(), contentType: z.string() });

export const ServedImageParams = z.object({ project: Uuid, file: z.string().regex(STORED_NAME) });
