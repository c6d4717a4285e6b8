/**
 * A rule of the domain was broken (the resource is gone, the change conflicts with its state, the
 * input breaks a rule). Thrown by db/ and services/, which know nothing of HTTP; the API maps the
 * kind to a status in one place (api/errors.ts `fromDomainError`).
 */
export type DomainErrorKind = 'not_found' | 'conflict' | 'invalid';

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    /** The input field at fault, for `invalid`. */
    readonly field?: string,
  ) {
    super(message);
  }
}
