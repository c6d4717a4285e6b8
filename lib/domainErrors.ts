/**
 * A rule of the domain was broken (the resource is gone, the change conflicts with its state, the
 * input breaks a rule, the caller may not do it, a limit is reached). Thrown by db/ and services/,
 * which know nothing of HTTP; the API maps the kind to a status in one place (api/errors.ts
 * `fromDomainError`).
 */
export type DomainErrorKind = 'not_found' | 'conflict' | 'invalid' | 'forbidden' | 'limit_reached';

/** What an answer may say beyond the message; the API carries it into the spec's error envelope. */
export interface DomainErrorExtra {
  /** The input field at fault, for `invalid`. */
  field?: string;
  /** For `invalid`: the answer's own message above the field's (absent: the field's message). */
  summary?: string;
  /** The envelope's `code` where the spec fixes one (the unverified sender's 403 keeps INTERNAL_SERVER_ERROR). */
  code?: string;
  details?: Record<string, unknown>;
  suggestion?: string;
  /** For `limit_reached`: when trying again helps, after how long (a rate); absent, waiting does not help (a cap). */
  retryAfterSeconds?: number;
}

export class DomainError extends Error {
  readonly extra: DomainErrorExtra;
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    /** The input field at fault (for `invalid`), or the answer's extras. */
    extra?: string | DomainErrorExtra,
  ) {
    super(message);
    this.extra = typeof extra === 'string' ? { field: extra } : (extra ?? {});
  }

  get field(): string | undefined {
    return this.extra.field;
  }
}
