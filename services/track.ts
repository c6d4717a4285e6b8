import type { Knex } from 'knex';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import { splitData } from '../lib/contactData';
import { type UpsertContactInput, upsertContactWith, linkedEvent } from '../db/contactWriters';
import type { EventRow } from '../db/events';
import { topicChanges } from '../db/topics';
import type { DoubleOptInSettings } from '../db/doubleOptIn';
import { doubleOptInFor, heldSubscription, needsConfirmation, requestConfirmation } from './doubleOptIn';
import type { Runtime } from './runtime';
import type { TemporalGateway } from './temporal';

/**
 * What a tracked event carries: the fields of POST /v1/track's body (api/schemas/track.ts
 * `TrackBody`, which validates them), declared here because services do not import the API; the
 * compiler checks the route's parsed body fits.
 */
export interface TrackRequest {
  email: string;
  event: string;
  subscribed?: boolean;
  data?: UpsertContactInput['data'];
  topics?: Record<string, boolean>;
  doubleOptIn?: boolean;
}

export interface TrackResult {
  contactId: string;
  eventId: string;
  createdAt: Date;
}

/**
 * Upserts the contact and records the event in one statement (they commit together), then queues
 * the event (and any subscription change) for routing. The caller never waits for what the event
 * triggers.
 */
export async function trackEvent(
  deps: { knex: Knex; temporal: TemporalGateway; log: Logger; config: Config; runtime: Pick<Runtime, 'events'> },
  projectId: string,
  body: TrackRequest,
  doubleOptInSettings?: DoubleOptInSettings | null,
): Promise<TrackResult> {
  // The event keeps what the caller sent for this occurrence, one-off values included.
  const split = splitData(body.data ?? {});
  const topics = await topicChanges(deps.knex, projectId, body.topics);
  // Under double opt-in a new contact starts unsubscribed and is mailed a confirmation (services/doubleOptIn).
  const doi = doubleOptInFor(doubleOptInSettings, body.doubleOptIn);
  const written = await upsertContactWith<EventRow & { settled: boolean }>(
    deps.knex,
    { projectId, email: body.email, subscribed: heldSubscription(doi, body.subscribed), data: body.data, defaultSubscribed: !doi, source: 'track', topics },
    linkedEvent({ name: body.event, data: { ...split.set, ...split.oneOff } }),
  );
  const event = written.linked;
  if (doi && needsConfirmation(doi, body.subscribed, written)) await requestConfirmation(deps, projectId, written.contact, doi);
  // Batched hand-off (services/eventBatcher.ts): the response does not wait for Temporal at all.
  // An event nothing listened to was written routed; it is only checked for a wait that raced it.
  const { settled, ...routable } = event;
  deps.runtime.events.queue(settled ? written.events : [...written.events, routable]);
  if (settled) deps.runtime.events.recheck([routable]);
  return { contactId: written.contact.id, eventId: event.id, createdAt: new Date(event.created_at) };
}
