/**
 * Which backing service an error says is out of reach, if any. The API answers these with a 503
 * envelope (the client may retry) instead of a 500: a Postgres restart or a Temporal outage is
 * an outage, not a bug.
 */
export type UnavailablePart = 'database' | 'temporal' | 'service';

/** Postgres: connection exceptions (08xxx), shutdown and start-up (57P01–57P03). */
const PG_UNAVAILABLE_CODES = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006']);
/** node-postgres's own words for a connection that broke or was closed under a query (a restart). */
const PG_CONNECTION_LOST = /^(Connection terminated|Client has encountered a connection error and is not queryable|Client was closed and is not queryable)/;
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTCONN']);
const SOCKET_MESSAGE = new RegExp(`\\b(${[...SOCKET_CODES].join('|')})\\b`);
/** gRPC UNAVAILABLE and DEADLINE_EXCEEDED: the client already retried before giving up. */
const GRPC_UNAVAILABLE = new Set([14, 4]);

export function unavailablePart(err: unknown): UnavailablePart | null {
  for (let e: any = err, depth = 0; e && depth < 5; e = e.cause, depth++) {
    if (e.name === 'ServiceError' || e.name === 'TransportError' || (typeof e.code === 'number' && GRPC_UNAVAILABLE.has(e.code) && 'details' in e)) {
      if (e.name !== 'ServiceError' || GRPC_UNAVAILABLE.has(e.cause?.code) || /connect|unavailable|deadline/i.test(String(e.message))) return 'temporal';
    }
    if (typeof e.code === 'string' && PG_UNAVAILABLE_CODES.has(e.code)) return 'database';
    if (e.name === 'KnexTimeoutError' || PG_CONNECTION_LOST.test(String(e.message))) return 'database';
    // A refused or reset socket: Postgres before it accepts connections, an S3 store, a provider.
    if (typeof e.code === 'string' && SOCKET_CODES.has(e.code)) return 'service';
    // The same, wrapped by a client library that kept only the message.
    if (SOCKET_MESSAGE.test(String(e.message))) return 'service';
  }
  return null;
}

/**
 * Postgres cancelled the statement (57014 query_canceled): the API's `statement_timeout`
 * (DB_STATEMENT_TIMEOUT_MS) ran out, on a slow query or one waiting for a lock. The request answers
 * 503 rather than holding its connection for as long as the query would take.
 */
export function isStatementTimeout(err: unknown): boolean {
  for (let e: any = err, depth = 0; e && depth < 5; e = e.cause, depth++) if (e.code === '57014') return true;
  return false;
}
