import type { Knex } from 'knex';
import { ApiError } from './errors';
import { isSenderDomainVerified } from '../db/domains';

/**
 * Templates, campaigns and /v1/send share this rule. The spec's 403 for an unverified sender keeps
 * the code INTERNAL_SERVER_ERROR (DESIGN §5.3); the message says what is wrong.
 */
export async function assertVerifiedSender(knex: Knex, projectId: string, from: string): Promise<void> {
  if (await isSenderDomainVerified(knex, projectId, from)) return;
  const domain = from.slice(from.lastIndexOf('@') + 1);
  throw new ApiError(403, 'INTERNAL_SERVER_ERROR', `The sender domain ${domain} is not verified for this project`, {
    suggestion: 'Add the domain with POST /domains and publish its DNS records, or use an address on a verified domain',
  });
}
