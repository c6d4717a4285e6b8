import type { Knex } from 'knex';
import { randomBase62, uuid } from '../lib/ids';
import { sha256Hex } from '../lib/hash';
import type { ProjectRow } from './projects';

/**
 * What a named API key may do (docs/api.md "Scoped API keys"). Each secret-key route declares the
 * one it needs (api/route.ts `scope`); `full` grants every scope.
 */
export const API_KEY_SCOPES = ['send', 'track', 'contacts:read', 'contacts:write', 'campaigns', 'templates', 'full'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** Named keys start with this: neither the project's sk_ nor its pk_, so a key's kind shows at a glance. */
export const API_KEY_PREFIX = 'key_';
/** How much of the secret is kept in clear to recognise it by: the prefix and 8 random characters. */
const SHOWN_CHARACTERS = API_KEY_PREFIX.length + 8;
/** lastUsedAt moves at most this often per key, so busy keys do not write their row on every request. */
const LAST_USED_EVERY_SECONDS = 60;

export interface ApiKeyRow {
  id: string;
  project_id: string;
  name: string;
  scopes: ApiKeyScope[];
  prefix: string;
  created_by: string | null;
  created_at: Date;
  last_used_at: Date | null;
}

export const grants = (scopes: readonly string[], needed: ApiKeyScope): boolean => scopes.includes('full') || scopes.includes(needed);

const COLUMNS = ['id', 'project_id', 'name', 'scopes', 'prefix', 'created_by', 'created_at', 'last_used_at'];

/** Creates a key; the secret is returned here and never again (only its sha256 is stored). */
export async function createApiKey(
  knex: Knex,
  input: { projectId: string; name: string; scopes: ApiKeyScope[]; createdBy: string | null },
): Promise<{ row: ApiKeyRow; secret: string }> {
  const secret = `${API_KEY_PREFIX}${randomBase62(32)}`;
  const [row] = await knex('api_keys')
    .insert({
      id: uuid(),
      project_id: input.projectId,
      name: input.name,
      scopes: input.scopes,
      key_hash: sha256Hex(secret),
      prefix: secret.slice(0, SHOWN_CHARACTERS),
      created_by: input.createdBy,
    })
    .returning(COLUMNS);
  return { row, secret };
}

/** The project's keys, oldest first, with their creator's current address. */
export async function listApiKeys(knex: Knex, projectId: string): Promise<Array<ApiKeyRow & { created_by_email: string | null }>> {
  return knex('api_keys')
    .leftJoin('users', 'users.id', 'api_keys.created_by')
    .where('api_keys.project_id', projectId)
    .orderBy([
      { column: 'api_keys.created_at', order: 'asc' },
      { column: 'api_keys.id', order: 'asc' },
    ])
    .select(...COLUMNS.map((c) => `api_keys.${c}`), 'users.email as created_by_email');
}

/** Deletes the project's key: the row every request looks up is gone, so the key fails at once everywhere. */
export async function deleteApiKey(knex: Knex, projectId: string, id: string): Promise<ApiKeyRow | null> {
  const [row] = await knex('api_keys').where({ project_id: projectId, id }).del().returning(COLUMNS);
  return row ?? null;
}

/**
 * The key's row and project, read on every request (no cache: a revoked key fails at once). The
 * same statement moves `last_used_at` when it is older than a minute: a conditional UPDATE in a
 * data-modifying CTE (which Postgres runs whether or not the SELECT reads it), so a busy key
 * writes its row once a minute and costs no second round trip.
 */
const LOOKUP = `
  WITH k AS (SELECT ${COLUMNS.join(', ')} FROM api_keys WHERE key_hash = ?),
       touched AS (
         UPDATE api_keys SET last_used_at = now()
         WHERE id = (SELECT id FROM k)
           AND (last_used_at IS NULL OR last_used_at < now() - make_interval(secs => ${LAST_USED_EVERY_SECONDS}))
         RETURNING id)
  SELECT p.*, k.id AS api_key_id, k.name AS api_key_name, k.scopes AS api_key_scopes, k.prefix AS api_key_prefix
  FROM k JOIN projects p ON p.id = k.project_id`;

/** A key as a request knows it: enough to check its scopes and name it in the audit log. */
export interface KeyPrincipal {
  id: string;
  name: string;
  scopes: ApiKeyScope[];
  prefix: string;
}

export async function findApiKeyBySecret(knex: Knex, secret: string): Promise<{ key: KeyPrincipal; project: ProjectRow } | null> {
  if (!secret.startsWith(API_KEY_PREFIX) || secret.length > 200) return null;
  const { rows } = await knex.raw(LOOKUP, [sha256Hex(secret)]);
  if (!rows[0]) return null;
  const { api_key_id: id, api_key_name: name, api_key_scopes: scopes, api_key_prefix: prefix, ...project } = rows[0];
  return { key: { id, name, scopes, prefix }, project: project as ProjectRow };
}
