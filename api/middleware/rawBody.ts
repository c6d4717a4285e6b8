import type { Next } from 'koa';
import type { AppContext } from '../context';
import { ApiError, badRequest } from '../errors';

/**
 * For signed webhooks: the signature covers the exact bytes sent, so no parser may consume them
 * first. Keeps the body as a Buffer in ctx.state.rawBody; only JSON is accepted.
 */
export function rawJsonBody(limitBytes: number) {
  return async (ctx: AppContext, next: Next) => {
    if (!ctx.is('application/json')) throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'This endpoint accepts application/json only');
    ctx.state.rawBody = await new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      ctx.req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        // Past the limit the rest is drained and dropped, then the request is refused.
        if (size <= limitBytes) chunks.push(chunk);
      });
      ctx.req.on('end', () =>
        size > limitBytes ? reject(new ApiError(413, 'PAYLOAD_TOO_LARGE', 'Request body is too large')) : resolve(Buffer.concat(chunks)),
      );
      ctx.req.on('error', () => reject(badRequest('The request body could not be read')));
    });
    await next();
  };
}

/** JSON.parse of a raw body, answering 400 on malformed JSON. */
export function parseRawJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw badRequest('The payload is not JSON');
  }
}
