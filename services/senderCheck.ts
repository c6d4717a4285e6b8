import type { Knex } from 'knex';
import { DomainError } from '../lib/domainErrors';
import { isSenderDomainVerified } from '../db/domains';
import { senderVerifiedWithLimits, BillingLimits } from '../db/billing';

function unverifiedSender(from: string): DomainError {
  const domain = from.slice(from.lastIndexOf('@') + 1);
  return new DomainError('forbidden', `The sender domain ${domain} is not verified for this project`, {
    code: 'INTERNAL_SERVER_ERROR',
    suggestion: 'Add the domain with POST /domains and publish its DNS records, or use an address on a verified domain',
  });
}

/**
 * Templates, campaigns and /v1/send share this rule; `waived` is senderCheckWaived(config) (lib/config.ts).
 * The spec's 403 for an unverified sender keeps the code INTERNAL_SERVER_ERROR (docs/api.md, Conventions'
 * error table); the message says what is wrong.
 */
export async function assertVerifiedSender(knex: Knex, projectId: string, from: string, waived: boolean): Promise<void> {
  if (!(await senderAllowed(knex, projectId, from, waived))) throw unverifiedSender(from);
}

/**
 * The sender rule itself: mail goes out from a domain the project verified, unless the check is
 * waived. The API's checks above throw its 403; the SEND_EMAIL step (activities/steps/sendEmail.ts) fails the step.
 */
export async function senderAllowed(knex: Knex, projectId: string, from: string, waived: boolean): Promise<boolean> {
  return waived || (await isSenderDomainVerified(knex, projectId, from));
}

/**
 * assertVerifiedSender and the read of the project's billing limits in one statement: what every
 * /v1/send checks before writing. Returns the limits for assertWithinLimits.
 */
export async function assertVerifiedSenderReadingLimits(knex: Knex, projectId: string, from: string, waived: boolean): Promise<BillingLimits> {
  const checked = await senderVerifiedWithLimits(knex, projectId, from);
  if (!checked.verified && !waived) throw unverifiedSender(from);
  return checked.limits;
}
