import { fromDomainError } from '../../api/errors';
import { DomainError } from '../../lib/domainErrors';

describe('fromDomainError: the one place a domain rule becomes an HTTP answer', () => {
  it('maps each kind to its status, keeping a code the spec fixes and the extras', () => {
    expect(fromDomainError(new DomainError('not_found', 'Campaign not found'))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(fromDomainError(new DomainError('conflict', 'busy'))).toMatchObject({ status: 409, code: 'CONFLICT' });
    expect(fromDomainError(new DomainError('invalid', 'bad', 'from'))).toMatchObject({
      status: 422,
      code: 'VALIDATION_ERROR',
      extra: { errors: [{ field: 'from', message: 'bad' }] },
    });
    const sender = fromDomainError(
      new DomainError('forbidden', 'The sender domain x.com is not verified', { code: 'INTERNAL_SERVER_ERROR', suggestion: 'Add the domain' }),
    );
    expect(sender).toMatchObject({ status: 403, code: 'INTERNAL_SERVER_ERROR', extra: { suggestion: 'Add the domain' } });
    expect(fromDomainError(new DomainError('forbidden', 'no'))).toMatchObject({ status: 403, code: 'FORBIDDEN' });
  });

  it('answers a reached cap 403 (waiting does not help) and a reached rate 429 with Retry-After', () => {
    const cap = fromDomainError(new DomainError('limit_reached', 'monthly emails limit', { code: 'BILLING_LIMIT_REACHED', details: { limit: 10 } }));
    expect(cap).toMatchObject({ status: 403, code: 'BILLING_LIMIT_REACHED', extra: { details: { limit: 10 } } });
    expect(cap.extra.headers).toBeUndefined();
    const rate = fromDomainError(new DomainError('limit_reached', 'too many invites', { retryAfterSeconds: 0.2 }));
    expect(rate).toMatchObject({ status: 429, code: 'RATE_LIMIT_EXCEEDED', extra: { headers: { 'Retry-After': '1' } } });
  });
});
