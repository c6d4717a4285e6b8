import type { Knex } from 'knex';
import { findProjectByKey, type ProjectRow } from '../db/projects';

/**
 * The password of SMTP AUTH is an API key (any user name): the project's secret key (`sk_…`), looked
 * up as the API's secret-key auth does (api/middleware/auth.ts). Null: no such key, the public key,
 * or a disabled project — all answered 535, so the reply says nothing about which.
 *
 * When scoped keys land (services/apiKeys.ts `authenticateKey(secret, requiredScope)`), this is the
 * one line to swap: resolve the key with the `send` scope required.
 */
export async function projectOfPassword(knex: Knex, password: string): Promise<ProjectRow | null> {
  if (!password || password.length > 200) return null;
  const found = await findProjectByKey(knex, password);
  return found?.kind === 'secret' && !found.project.disabled ? found.project : null;
}
