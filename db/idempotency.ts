import type { Knex } from 'knex';

export interface IdempotencyRecord {
  key: string;
  method: string;
  path: string;
  status_code: number | null;
  created_at: Date;
  /** The stored answer of a route that replays it (POST /v1/send/batch); null otherwise. */
  response?: unknown;
}

/** 1..255 printable ASCII characters (spec "Limits"). */
export function isValidIdempotencyKey(key: string): boolean {
  return /^[\x20-\x7E]{1,255}$/.test(key);
}

/**
 * Claims the key for this request in one statement, so of N concurrent requests exactly one wins.
 * An expired key is taken over in the same statement. Returns null when claimed, else the holder.
 */
export async function claimIdempotencyKey(
  knex: Knex,
  projectId: string,
  key: string,
  request: { method: string; path: string },
  ttlHours: number,
): Promise<IdempotencyRecord | null> {
  const { rows } = await knex.raw(
    `INSERT INTO idempotency_keys (project_id, key, method, path, status_code, created_at, expires_at)
     VALUES (?, ?, ?, ?, NULL, now(), now() + make_interval(secs => ?))
     ON CONFLICT (project_id, key) DO UPDATE
       SET method = EXCLUDED.method, path = EXCLUDED.path, status_code = NULL,
           created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
       WHERE idempotency_keys.expires_at <= now()
     RETURNING key`,
    [projectId, key, request.method, request.path, ttlHours * 3600],
  );
  if (rows.length > 0) return null;
  const holder: IdempotencyRecord | undefined = await knex('idempotency_keys')
    .where({ project_id: projectId, key })
    .first('key', 'method', 'path', 'status_code', 'created_at', 'response');
  // Released between our insert and this read: report it as still in flight rather than retrying.
  return holder ?? { key, method: request.method, path: request.path, status_code: null, created_at: new Date() };
}

export async function completeIdempotencyKey(knex: Knex, projectId: string, key: string, statusCode: number, response?: unknown): Promise<void> {
  await knex('idempotency_keys')
    .where({ project_id: projectId, key })
    .update({ status_code: statusCode, ...(response === undefined ? {} : { response: JSON.stringify(response) }) });
}

/** A 5xx frees the key so the client can retry the same request. */
export async function releaseIdempotencyKey(knex: Knex, projectId: string, key: string): Promise<void> {
  await knex('idempotency_keys').where({ project_id: projectId, key }).del();
}

export async function pruneIdempotencyKeys(knex: Knex): Promise<number> {
  return knex('idempotency_keys').where('expires_at', '<=', knex.fn.now()).del();
}
