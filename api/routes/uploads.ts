import fs from 'node:fs';
import { route } from '../route';
import { ApiError, notFound } from '../errors';
import { ImageUploadBody, MAX_IMAGE_BYTES, ServedImageParams, UploadOut } from '../schemas/uploads';
import { IMAGE_TYPES, ImageExt, sniffImage, SNIFF_BYTES } from '../../lib/storage';

async function head(file: string): Promise<Buffer> {
  const fd = await fs.promises.open(file, 'r');
  try {
    const buf = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await fd.read(buf, 0, SNIFF_BYTES, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fd.close();
  }
}

export default [
  route({
    method: 'post',
    path: '/uploads/image',
    auth: 'secret',
    tag: 'uploads',
    summary: 'Upload an image for template bodies (multipart field "file"; PNG, JPEG, GIF or WebP by content; at most 5 MB); returns its public URL',
    multipart: { maxFileSize: MAX_IMAGE_BYTES },
    body: ImageUploadBody,
    responses: {
      201: { description: 'stored', schema: UploadOut },
      413: { description: 'larger than 5 MB' },
      415: { description: 'not a PNG, JPEG, GIF or WebP image (SVG is refused)' },
    },
    async handler(ctx, { body, project }) {
      // The temporary file is removed by the router after the request (api/router.ts removeUploadsAfter).
      const { filepath, size } = body.file;
      const ext = sniffImage(await head(filepath));
      if (!ext) {
        throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'The file is not a PNG, JPEG, GIF or WebP image', {
          suggestion: 'The type is read from the file content, not its name; SVG is not accepted',
        });
      }
      const projectId = project.id;
      const name = await ctx.deps.runtime.images.putFile(projectId, filepath, ext);
      ctx.status = 201;
      return { url: `${ctx.deps.config.appUrl}/uploads/${projectId}/${name}`, size, contentType: IMAGE_TYPES[ext] };
    },
  }),
  route({
    method: 'get',
    path: '/uploads/:project/:file',
    auth: 'none',
    tag: 'uploads',
    summary: 'An uploaded image, publicly readable by its unguessable URL (linked from sent emails)',
    params: ServedImageParams,
    resource: 'Image',
    responses: { 200: { description: 'the image bytes', contentType: [...new Set(Object.values(IMAGE_TYPES))] } },
    async handler(ctx, { params }) {
      const found = await ctx.deps.runtime.images.open(params.project, params.file);
      if (!found) throw notFound('Image');
      const ext = params.file.slice(params.file.lastIndexOf('.') + 1) as ImageExt;
      ctx.set({
        'X-Content-Type-Options': 'nosniff',
        'Content-Security-Policy': "default-src 'none'",
        // Names are never reused, so the bytes behind a URL never change.
        'Cache-Control': 'public, max-age=31536000, immutable',
        'Cross-Origin-Resource-Policy': 'cross-origin',
      });
      ctx.body = found.body;
      ctx.type = IMAGE_TYPES[ext];
      ctx.length = found.size;
    },
  }),
];
