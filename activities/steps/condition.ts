import { ApplicationFailure } from '@temporalio/activity';
import type { ActivityDeps } from '../deps';
import { contactMatches, FilterError } from '../../db/filters';

/** The activity of the CONDITION step (temporal/steps/condition.ts): the filter compiler of db/filters. */
export function conditionStepActivities(deps: ActivityDeps) {
  const { knex } = deps;
  return {
    async evaluateCondition(input: { projectId: string; contactId: string; condition: unknown }): Promise<boolean> {
      try {
        return await contactMatches(knex, input.projectId, input.contactId, input.condition);
      } catch (err) {
        if (err instanceof FilterError) throw ApplicationFailure.nonRetryable(`invalid condition: ${err.message}`, 'InvalidCondition');
        throw err;
      }
    },
  };
}
