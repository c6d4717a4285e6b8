import type { Knex } from 'knex';
import { type ApiKeyScope, findApiKeyBySecret, grants, type KeyPrincipal } from '../db/apiKeys';
import { findProjectByKey, type ProjectRow } from '../db/projects';

export type KeyAuthentication =
  | { project: ProjectRow; scopes: readonly ApiKeyScope[]; key: KeyPrincipal | null }
  | { error: 'invalid' | 'scope' | 'disabled'; message: string };

/** The scopes of the project's own secret key: every one. */
export const SECRET_KEY_SCOPES: readonly ApiKeyScope[] = ['full'];

export const lacksScope = (scope: ApiKeyScope) => `This API key lacks the ${scope} scope`;

/**
 * A key presented to an entry that is not an HTTP route (the SMTP submission server, the MCP
 * server), checked for one scope: the project's secret key (every scope) or a named key (its own;
 * `key` names it). The public key is for web pages and opens none of these entries. Looked up in
 * the database each time, like the routes' keys, so a revoked or rotated key fails at once.
 */
export async function authenticateKey(knex: Knex, secret: string, requiredScope: ApiKeyScope): Promise<KeyAuthentication> {
  const found = await identifyKey(knex, secret);
  if ('error' in found) return found;
  if (!grants(found.scopes, requiredScope)) return { error: 'scope', message: lacksScope(requiredScope) };
  return found;
}

/** The key's project and scopes, before any scope is asked (the MCP server checks one per tool). */
export async function identifyKey(knex: Knex, secret: string): Promise<KeyAuthentication> {
  let found: { project: ProjectRow; scopes: readonly ApiKeyScope[]; key: KeyPrincipal | null } | null = null;
  if (secret.startsWith('sk_') && secret.length <= 200) {
    const byKey = await findProjectByKey(knex, secret);
    if (byKey?.kind === 'secret') found = { project: byKey.project, scopes: SECRET_KEY_SCOPES, key: null };
  } else {
    const named = await findApiKeyBySecret(knex, secret);
    if (named) found = { project: named.project, scopes: named.key.scopes, key: named.key };
  }
  if (!found) return { error: 'invalid', message: 'Invalid API key' };
  if (found.project.disabled) return { error: 'disabled', message: 'This project is disabled' };
  return found;
}
