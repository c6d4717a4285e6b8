import type { Knex } from 'knex';
import type { ProjectRow } from '../db/projects';
import { authenticateKey } from '../services/apiKeys';

/**
 * The password of SMTP AUTH is an API key (any user name) with the `send` scope: the project's
 * secret key (`sk_…`, every scope) or a named key (`key_…`) that carries `send`, looked up as the
 * API's key auth does on every attempt (a revoked key fails at once). Null: no such key, the public
 * key, a key without `send`, or a disabled project — all answered 535, so the reply says nothing
 * about which.
 */
export async function projectOfPassword(knex: Knex, password: string): Promise<ProjectRow | null> {
  if (!password || password.length > 200) return null;
  const found = await authenticateKey(knex, password, 'send');
  return 'error' in found ? null : found.project;
}
