import { ApplicationFailure } from '@temporalio/activity';
import type { ActivityDeps } from '../deps';
import { ContactDataError } from '../../lib/contactData';
import { updateContact } from '../../db/contactWriters';
import { applyStepOnce } from '../../db/executions';
import { eventsByIds } from '../../db/events';
import { startEventRouting } from '../../services/events';

const fail = (message: string, type: string) => ApplicationFailure.nonRetryable(message, type);

/** The activity of the UPDATE_CONTACT step (temporal/steps/updateContact.ts). */
export function updateContactStepActivities(deps: ActivityDeps) {
  const { knex } = deps;
  return {
    /**
     * UPDATE_CONTACT through db/contactWriters. The step's history row records that the change was applied
     * (and which events it emitted) in the same transaction, so a retry routes those events instead
     * of applying again and finding nothing changed.
     */
    async applyContactUpdate(input: {
      executionId: string;
      seq: number;
      projectId: string;
      contactId: string;
      data?: Record<string, unknown>;
      subscribed?: boolean;
    }): Promise<{ changed: boolean; events: string[] }> {
      const outcome = await applyStepOnce(knex, input.executionId, input.seq, async (trx) => {
        let written: Awaited<ReturnType<typeof updateContact>>;
        try {
          written = await updateContact(trx, {
            projectId: input.projectId,
            contactId: input.contactId,
            data: input.data,
            subscribed: input.subscribed,
            source: 'workflow',
          });
        } catch (err) {
          if (err instanceof ContactDataError) throw fail(err.message, 'ContactDataError');
          throw err;
        }
        if (!written) throw fail('the contact no longer exists', 'ContactGone');
        return { changed: written.changed, eventIds: written.events.map((e) => e.id) };
      });
      const events = outcome.eventIds.length ? await eventsByIds(knex, outcome.eventIds) : [];
      await startEventRouting(deps.temporal, events);
      return { changed: outcome.changed, events: events.map((e) => e.name) };
    },
  };
}
