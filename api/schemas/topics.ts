import { z } from 'zod';
import { Timestamp } from './common';
import { TOPIC_SLUG } from '../../db/topics';

/** At most this many topics a request may set at once (`topics` on contacts, /v1/send, /v1/track). */
export const MAX_TOPIC_STATES = 50;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const TopicSlug = z
  .string()
  .min(1)
  .max(60)
  .regex(TOPIC_SLUG, 'Slug must be lowercase letters and digits in words joined by "-"')
  .refine((s) => !UUID.test(s), 'A slug must not look like a topic id')
  .describe('what filter trees (`topic.<slug>`) and requests name the topic by; fixed at creation');

/** `topics: { "<topic id or slug>": true|false }`: the contact's choices; unnamed topics keep their state. */
export const TopicStatesInput = z
  .record(z.string().min(1).max(100), z.boolean())
  .refine((r) => Object.keys(r).length <= MAX_TOPIC_STATES, `at most ${MAX_TOPIC_STATES} topics per request`)
  .describe('topic id or slug → subscribed to it (true) or not (false); an unknown topic is a 422');

export const TopicCreate = z.object({
  name: z.string().trim().min(1).max(100),
  slug: TopicSlug.optional().describe('default: from the name (lowercase, "-" for other characters), with a -2, -3 … suffix when taken'),
  description: z.string().max(500).nullable().optional().describe('shown on the preference center'),
  defaultSubscribed: z.boolean().default(false).describe('the state of a contact that never chose'),
  public: z.boolean().default(true).describe('listed on the preference center'),
});

export const TopicUpdate = z
  .object({
    name: z.string().trim().min(1).max(100).optional(),
    description: z.string().max(500).nullable().optional(),
    defaultSubscribed: z.boolean().optional(),
    public: z.boolean().optional(),
  })
  .strict();

export const TopicOut = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  description: z.string().nullable(),
  defaultSubscribed: z.boolean(),
  public: z.boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const TopicListOut = z.object({ data: z.array(TopicOut) });
