import type { Deps } from '../context';
import type { TrackBody } from '../schemas/track';
import { upsertContact, splitData } from '../../db/contacts';
import { recordEvent } from '../../db/events';
import { startEventRouting } from '../../temporal/events';

export interface TrackResult {
  contactId: string;
  eventId: string;
  createdAt: Date;
}

/**
 * Upserts the contact and records the event in one transaction, then hands the event (and any
 * subscription change) to `routeEvent`. The caller never waits for what the event triggers.
 */
export async function trackEvent(deps: Pick<Deps, 'knex' | 'temporal'>, projectId: string, body: TrackBody): Promise<TrackResult> {
  const { contact, event, emitted } = await deps.knex.transaction(async (trx) => {
    const written = await upsertContact(trx, { projectId, email: body.email, subscribed: body.subscribed, data: body.data, defaultSubscribed: true, source: 'track' });
    // The event keeps what the caller sent for this occurrence, one-off values included.
    const split = splitData(body.data ?? {});
    const recorded = await recordEvent(trx, { projectId, contactId: written.contact.id, name: body.event, data: { ...split.set, ...split.oneOff } });
    return { contact: written.contact, event: recorded, emitted: written.events };
  });
  await startEventRouting(deps.temporal, [...emitted, event]);
  return { contactId: contact.id, eventId: event.id, createdAt: event.created_at };
}
