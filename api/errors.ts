import { DomainError } from '../lib/domainErrors';

/** Field-level detail in the error envelope (spec "Errors"). */
export interface FieldError {
  field: string;
  message: string;
  code: string;
  received?: unknown;
  /** A workflow step the problem belongs to (enabling a graph that cannot run). */
  stepId?: string;
}

export interface ErrorExtra {
  errors?: FieldError[];
  details?: Record<string, unknown>;
  suggestion?: string;
  headers?: Record<string, string>;
}

/** Every failure the API answers with on purpose; anything else becomes a logged 500. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: ErrorExtra = {},
  ) {
    super(message);
  }
}

/** The flat `{ error }` body the spec keeps for contacts, templates and segments validation. */
export class FlatError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, extra?: ErrorExtra) => new ApiError(400, 'BAD_REQUEST', message, extra);
export const unauthorized = (message = 'Missing or invalid API key') => new ApiError(401, 'UNAUTHORIZED', message);
export const forbidden = (message = 'Forbidden') => new ApiError(403, 'FORBIDDEN', message);
export const notFound = (what = 'Resource') => new ApiError(404, 'NOT_FOUND', `${what} not found`);
export const conflict = (message: string, extra?: ErrorExtra) => new ApiError(409, 'CONFLICT', message, extra);
export const validationError = (errors: FieldError[], message = 'Request validation failed') => new ApiError(422, 'VALIDATION_ERROR', message, { errors });

/** The one place a domain rule (db/, services/) becomes an HTTP answer. */
export function fromDomainError(err: DomainError): ApiError {
  const { code, details, suggestion, retryAfterSeconds } = err.extra;
  const extra: ErrorExtra = { ...(details ? { details } : {}), ...(suggestion ? { suggestion } : {}) };
  switch (err.kind) {
    case 'not_found':
      return new ApiError(404, code ?? 'NOT_FOUND', err.message, extra);
    case 'conflict':
      return new ApiError(409, code ?? 'CONFLICT', err.message, extra);
    case 'forbidden':
      return new ApiError(403, code ?? 'FORBIDDEN', err.message, extra);
    case 'limit_reached':
      // A rate answers 429 with when to come back; a cap (waiting does not help) answers 403.
      return retryAfterSeconds !== undefined
        ? new ApiError(429, code ?? 'RATE_LIMIT_EXCEEDED', err.message, {
            ...extra,
            headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
          })
        : new ApiError(403, code ?? 'LIMIT_REACHED', err.message, extra);
    case 'invalid':
      return validationError([{ field: err.field ?? '(root)', code: 'custom', message: err.message }], err.extra.summary ?? err.message);
  }
}
