import { z } from 'zod';
import { Timestamp } from './common';
import { ContactIdParams } from './contacts';
import { days, Instant, limit } from './analytics';

/** An event name as stored: 1 to 255 characters, no control characters (Postgres text cannot hold NUL). */
const StoredEventName = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[^\u0000-\u001f\u007f]+$/, 'must not contain control characters');

const ContactId = ContactIdParams.shape.id;

export const EventNameParams = z.object({ eventName: StoredEventName });
export const ContactEventsParams = z.object({ contactId: ContactId });

const Cursor = z.string().min(1).max(1000).describe('the `cursor` of the previous page');

export const ContactEventsQuery = z.object({ limit: limit(20, 100), cursor: Cursor.optional() });

export const EventListQuery = ContactEventsQuery.extend({
  name: StoredEventName.optional().describe('only events of this name'),
  contactId: ContactId.optional().describe('only events of this contact'),
  from: Instant.optional().describe('created at or after (inclusive)'),
  to: Instant.optional().describe('created before (exclusive)'),
});

export const EventStatsQuery = z.object({ days: days(30), limit: limit(100, 500) });

export const EventNamesQuery = z.object({ days: days(30).describe('window of `count` in days ending now (1 to 365, default 30)'), limit: limit(500, 1000) });

const EventOut = z.object({
  id: z.string(),
  name: z.string(),
  contactId: z.string().nullable(),
  contactEmail: z.string().nullable(),
  data: z.record(z.string(), z.unknown()),
  createdAt: Timestamp,
});

export const EventPageOut = z.object({
  data: z.array(EventOut),
  cursor: z.string().nullable().describe('pass as `cursor` for the next page; null on the last page'),
  hasMore: z.boolean(),
});

export const EventStatsOut = z.object({
  from: Timestamp,
  to: Timestamp,
  total: z.number().int(),
  uniqueContacts: z.number().int(),
  data: z.array(z.object({ name: z.string(), count: z.number().int(), uniqueContacts: z.number().int() })),
});

export const EventNamesOut = z.object({
  data: z.array(
    z.object({
      name: z.string(),
      count: z.number().int().describe('events of this name in the window'),
      lastSeen: Timestamp,
      reserved: z.boolean().describe('in a family the service emits (email.*, contact.*, segment.*, campaign.*, webhook.*); cannot be tracked or deleted'),
    }),
  ),
});

const Named = z.object({ id: z.string(), name: z.string() });

export const EventUsageOut = z.object({
  event: z.string(),
  segments: z.array(Named),
  campaigns: z.array(Named),
  workflows: z.array(Named.extend({ references: z.array(z.enum(['trigger', 'waitForEvent', 'condition'])) })),
});
