import type { Knex } from 'knex';
import type { EmailRow } from './emails';
import type { ProviderMilestone } from './campaignCounters';

/** Provider webhook bookkeeping (services/providerEvents applies the events). */

/** Remembers a provider event id; false when it was seen before (a re-post). */
export async function claimProviderEvent(trx: Knex, id: string): Promise<boolean> {
  const fresh = await trx('provider_events').insert({ id }).onConflict('id').ignore().returning('id');
  return fresh.length > 0;
}

/**
 * By our email id; else by the provider's message id, which a whole batch shares, plus the address.
 * With `requireMessageId`, an email found by its id must also carry that provider message id.
 */
export async function emailForProviderEvent(
  trx: Knex,
  ref: { emailId?: string; messageId?: string; address?: string; requireMessageId?: boolean },
): Promise<EmailRow | undefined> {
  if (ref.requireMessageId && !ref.messageId) return undefined;
  if (ref.emailId) {
    const byId = trx<EmailRow>('emails').where({ id: ref.emailId });
    return (ref.requireMessageId ? byId.andWhere({ provider_message_id: ref.messageId }) : byId).first();
  }
  if (!ref.messageId || !ref.address) return undefined;
  return trx<EmailRow>('emails').where({ provider_message_id: ref.messageId }).whereRaw('lower(to_email) = ?', [ref.address]).first();
}

/** Sets a once-per-email timestamp; true the first time. */
export async function setEmailMilestone(trx: Knex, id: string, milestone: ProviderMilestone, at: Date): Promise<boolean> {
  return (
    (await trx('emails')
      .where({ id })
      .whereNull(milestone)
      .update({ [milestone]: at })) > 0
  );
}

export async function pruneProviderEventIds(db: Knex, olderThanDays: number): Promise<number> {
  return db('provider_events')
    .where('received_at', '<', db.raw(`now() - make_interval(days => ?)`, [olderThanDays]))
    .del();
}
