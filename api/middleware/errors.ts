import type { Next } from 'koa';
import type { AppContext } from '../context';
import { ApiError, FlatError, fromDomainError } from '../errors';
import { DomainError } from '../../lib/domainErrors';
import { isStatementTimeout, unavailablePart } from '../../lib/unavailable';

const STATUS_CODES: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'VALIDATION_ERROR',
  429: 'RATE_LIMIT_EXCEEDED',
};

export function envelope(ctx: AppContext, err: ApiError) {
  const { errors, details, suggestion } = err.extra;
  return {
    success: false,
    error: {
      code: err.code,
      message: err.message,
      statusCode: err.status,
      requestId: ctx.state.requestId,
      ...(errors ? { errors } : {}),
      ...(details ? { details } : {}),
      ...(suggestion ? { suggestion } : {}),
    },
    timestamp: new Date().toISOString(),
  };
}

/** Turns any thrown error into the spec's envelope; nothing internal reaches the client. */
function toApiError(err: any): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof DomainError) return fromDomainError(err);
  const status: number | undefined = err?.status ?? err?.statusCode;
  if (status === 501) return new ApiError(501, 'NOT_IMPLEMENTED', 'HTTP method not supported');
  // Errors Koa and its parsers raise on purpose (malformed JSON, too large, unknown method).
  if (typeof status === 'number' && status >= 400 && status < 500 && (err.expose !== false || status === 413)) {
    const code = STATUS_CODES[status] ?? 'BAD_REQUEST';
    let message = err.message || code;
    if (err.type === 'entity.parse.failed' || /JSON/i.test(message)) message = 'Malformed JSON body';
    if (status === 413) message = 'Request body is too large';
    return new ApiError(status, code, message);
  }
  if (isStatementTimeout(err)) {
    return new ApiError(503, 'SERVICE_UNAVAILABLE', 'The database did not answer in time (statement timeout); retry shortly', {
      details: { unavailable: 'database' },
      headers: { 'Retry-After': '5' },
    });
  }
  const part = unavailablePart(err);
  if (part) {
    return new ApiError(
      503,
      'SERVICE_UNAVAILABLE',
      `${part === 'service' ? 'A backing service' : part === 'database' ? 'The database' : 'Temporal'} is unreachable; retry shortly`,
      {
        details: { unavailable: part },
        headers: { 'Retry-After': '5' },
      },
    );
  }
  return new ApiError(500, 'INTERNAL_SERVER_ERROR', 'An unexpected error occurred');
}

export async function errorEnvelope(ctx: AppContext, next: Next) {
  try {
    await next();
    if (ctx.status === 404 && ctx.body === undefined) {
      throw new ApiError(404, 'NOT_FOUND', `No route for ${ctx.method} ${ctx.path}`);
    }
  } catch (thrown: any) {
    if (thrown instanceof FlatError) {
      ctx.status = thrown.status;
      ctx.body = { error: thrown.message };
      return;
    }
    const err = toApiError(thrown);
    if (err.status >= 500) {
      ctx.deps.log.error({ err: thrown, requestId: ctx.state.requestId, method: ctx.method, path: ctx.path }, 'request failed');
    }
    ctx.status = err.status;
    for (const [k, v] of Object.entries(err.extra.headers ?? {})) ctx.set(k, v);
    ctx.body = envelope(ctx, err);
  }
}
