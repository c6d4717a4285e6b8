import type { Deps } from '../context';
import type { TrackBody } from '../schemas/track';
import { upsertContact, splitData } from '../../db/contacts';
import { recordEvent } from '../../db/events';
import { enqueueEventRouting } from '../../temporal/eventBatcher';

export interface TrackResult {
  contactId: string;
  eventId: string;
  createdAt: Date;
}

/**
 * Upserts the contact and records the event in one transaction, then queues the event (and any
 * subscription change) for routing. The caller never waits for what the event triggers.
 */
export async function trackEvent(deps: Pick<Deps, 'knex' | 'temporal' | 'log'>, projectId: string, body: TrackBody): Promise<TrackResult> {
  const { contact, event, emitted } = await deps.knex.transaction(async (trx) => {
    const written = await upsertContact(trx, { projectId, email: body.email, subscribed: body.subscribed, data: body.data, defaultSubscribed: true, source: 'track' });
    // The event keeps what the caller sent for this occurrence, one-off values included.
    const split = splitData(body.data ?? {});
    const recorded = await recordEvent(trx, { projectId, contactId: written.contact.id, name: body.event, data: { ...split.set, ...split.oneOff } });
    return { contact: written.contact, event: recorded, emitted: written.events };
  });
  // Batched hand-off (temporal/eventBatcher.ts): the response does not wait for Temporal at all.
  enqueueEventRouting(deps.temporal, [...emitted, event], (err) => deps.log.warn({ err }, 'event routing start failed; the maintenance sweep will route these events'));
  return { contactId: contact.id, eventId: event.id, createdAt: event.created_at };
}
