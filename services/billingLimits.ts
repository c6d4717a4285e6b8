import type { Knex } from 'knex';
import { DomainError } from '../lib/domainErrors';
import { BillingCategory, BillingLimits, currentPeriod, limitBreach } from '../db/billing';

/**
 * Refuses work that would take a project past a monthly cap it set (billing-limits), before any
 * of it is done. 403 rather than 429: waiting a minute does not help; raising the cap or the next
 * calendar month does. `known`: the limits when the caller already read them (services/senderCheck.ts).
 */
export async function assertWithinLimits(
  knex: Knex,
  projectId: string,
  requested: Partial<Record<BillingCategory, number>>,
  known?: BillingLimits,
): Promise<void> {
  const breach = await limitBreach(knex, projectId, requested, known);
  if (!breach) return;
  const { category, limit, used } = breach;
  throw new DomainError(
    'limit_reached',
    `This would exceed the project's monthly ${category} limit (${used} of ${limit} used, ${breach.requested} more requested)`,
    {
      code: 'BILLING_LIMIT_REACHED',
      details: { ...breach, periodEnd: currentPeriod().end.toISOString() },
      suggestion: 'Raise the limit with PUT /users/@me/projects/:id/billing-limits, or wait for the next calendar month (UTC)',
    },
  );
}
