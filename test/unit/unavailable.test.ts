import { unavailablePart } from '../../lib/unavailable';

/** Which errors the API answers with a 503 envelope instead of a 500 (api/middleware/errors.ts). */
describe('unavailablePart', () => {
  it('names Postgres when it is shutting down, starting, or the connection broke', () => {
    for (const code of ['57P01', '57P03', '08006']) expect(unavailablePart(Object.assign(new Error('pg'), { code }))).toBe('database');
    expect(unavailablePart(new Error('Connection terminated unexpectedly'))).toBe('database');
    // node-postgres, when a pooled client's connection broke or was closed under a query.
    expect(unavailablePart(new Error('Client has encountered a connection error and is not queryable'))).toBe('database');
    expect(unavailablePart(new Error('Client was closed and is not queryable'))).toBe('database');
    expect(unavailablePart(Object.assign(new Error('Timeout acquiring a connection'), { name: 'KnexTimeoutError' }))).toBe('database');
  });

  it('names Temporal for a client ServiceError caused by gRPC UNAVAILABLE or DEADLINE_EXCEEDED', () => {
    const service = (code: number) =>
      Object.assign(new Error('Failed to start Workflow'), { name: 'ServiceError', cause: Object.assign(new Error('14 UNAVAILABLE'), { code, details: '' }) });
    expect(unavailablePart(service(14))).toBe('temporal');
    expect(unavailablePart(service(4))).toBe('temporal');
  });

  it('names a backing service for refused or reset sockets, also when a library kept only the message', () => {
    expect(unavailablePart(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe('service');
    expect(unavailablePart(new Error('AWS SDK error wrapper for Error: connect ECONNREFUSED 127.0.0.1:9'))).toBe('service');
  });

  it('leaves everything else to be a 500', () => {
    expect(unavailablePart(new Error('boom'))).toBeNull();
    expect(unavailablePart(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBeNull();
    const notFound = Object.assign(new Error('workflow not found'), {
      name: 'ServiceError',
      cause: Object.assign(new Error('5 NOT_FOUND'), { code: 5, details: '' }),
    });
    expect(unavailablePart(notFound)).toBeNull();
    expect(unavailablePart(undefined)).toBeNull();
  });
});
