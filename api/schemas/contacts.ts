import { z } from 'zod';
import { Email, PageQuery, Timestamp } from './common';
import { dataProblems, FIELD_TYPES } from '../../lib/contactData';
import { TopicStatesInput } from './topics';
import { ConsentSourceOut } from './consentSources';

/** `cnt_` + base62 (lib/ids contactId); anything else cannot be a contact and answers 404. */
export const ContactIdParams = z.object({ id: z.string().regex(/^cnt_[0-9A-Za-z]{1,64}$/) });

/**
 * A `data` payload: any JSON object within the limits of lib/contactData. The patch rules themselves
 * (null, "", reserved keys, one-off values) are applied by the contact writers (db/contactWriters), not here. Shared by every
 * route that takes contact data (/contacts, /v1/send, /v1/track).
 */
export const ContactDataInput = z.record(z.string(), z.unknown()).superRefine((data, ctx) => {
  for (const p of dataProblems(data)) ctx.addIssue({ code: 'custom', path: p.path, message: p.message });
});

export const ContactCreate = z.object({
  email: Email,
  subscribed: z.boolean().optional(),
  data: ContactDataInput.optional(),
  topics: TopicStatesInput.optional(),
  doubleOptIn: z
    .boolean()
    .optional()
    .describe(
      "true: a subscription waits for the person to confirm it from an emailed link (needs the project's doubleOptIn settings); false: not even when the project asks for it by default",
    ),
});

export const ContactUpdate = z.object({
  email: Email.optional(),
  subscribed: z.boolean().optional(),
  data: ContactDataInput.optional(),
  topics: TopicStatesInput.optional(),
});

const MAX_PAGE_LIMIT = 100;

export const ContactListQuery = z.object({
  // Larger limits are clamped, not refused (spec limits table).
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .default(20)
    .transform((n) => Math.min(n, MAX_PAGE_LIMIT)),
  cursor: z.string().min(1).max(1000).optional(),
  search: z.string().max(320).optional().describe('case-insensitive substring of the email (POST /contacts/search also matches names and any field value)'),
  subscribed: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional(),
  // Unknown sort or direction falls back to the default rather than failing.
  sort: z.enum(['email', 'createdAt']).catch('createdAt'),
  dir: z.enum(['asc', 'desc']).catch('desc'),
});

export const ContactOut = z.object({
  id: z.string(),
  email: z.string(),
  subscribed: z.boolean(),
  data: z.record(z.string(), z.unknown()),
  topics: z
    .record(z.string(), z.boolean())
    .optional()
    .describe("single-contact answers only: every topic of the project by slug → subscribed (the choice, else the topic's default)"),
  pending: z.boolean().optional().describe('single-contact answers only: waiting for its double opt-in confirmation'),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const ContactUpsertOut = ContactOut.extend({ _meta: z.object({ isNew: z.boolean(), isUpdate: z.boolean() }) });

export const ContactPageOut = z.object({
  data: z.array(ContactOut),
  cursor: z.string().nullable(),
  hasMore: z.boolean(),
  total: z.number().int(),
  estimated: z
    .literal(true)
    .optional()
    .describe('present when `total` is an estimate: a project\'s unfiltered list at or above COUNT_ESTIMATE_THRESHOLD contacts (the dashboard says "about")'),
});

export const FieldsOut = z.object({
  fields: z.array(
    z.object({
      field: z.string(),
      type: z.enum(FIELD_TYPES),
      isCustom: z.boolean(),
      coverage: z.number().min(0).max(1),
    }),
  ),
});

export const ConsentQuery = PageQuery.extend({ pageSize: z.coerce.number().int().min(1).max(1000).default(100) });

export const ConsentRecordOut = z.object({
  scope: z.enum(['global', 'topic']).describe("global: the `subscribed` flag; topic: one topic's state"),
  topic: z.object({ id: z.string(), slug: z.string() }).nullable().describe('the topic (as it was named then) of a topic record'),
  value: z.boolean().describe('the state after the change: subscribed (true) or not'),
  source: ConsentSourceOut,
  at: Timestamp,
  ip: z.string().nullable().describe("the browser's address, for changes made on the subscription pages"),
  userAgent: z.string().nullable().describe("the browser's User-Agent, for changes made on the subscription pages"),
});

export const ConsentPageOut = z.object({
  data: z.array(ConsentRecordOut),
  page: z.number().int(),
  pageSize: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
});
