import { z } from 'zod';
import { Email } from './common';
import { ContactDataInput } from './contacts';
import { TopicStatesInput } from './topics';
import { isForbiddenHeader } from '../../lib/mailHeaders';
import { TrackingChoiceIn } from './tracking';

const NO_CRLF = /^[^\r\n]*$/;

/** An address as a string or `{ name, email }`: recipients and senders alike. */
export const Address = z.union([Email, z.object({ name: z.string().max(200).regex(NO_CRLF, 'Name must not contain line breaks').optional(), email: Email })]);

const ATTACHMENT_LIMITS = { count: 10, totalBytes: 10 * 1024 * 1024 } as const;
/** The whole JSON body; base64 inflates the 40 MB message limit by a third. */
export const SEND_BODY_LIMIT = '56mb';

const Base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'content must be base64');

const Attachment = z.object({
  filename: z
    .string()
    .min(1)
    .max(255)
    .regex(/^[^\r\n\\/]*$/, 'filename must not contain line breaks or path separators'),
  content: Base64,
  contentType: z
    .string()
    .max(255)
    .regex(/^[\w.+-]+\/[\w.+-]+$/, 'contentType must be a MIME type')
    .optional(),
});

/** Bytes a base64 string decodes to, without decoding it. */
const base64Bytes = (s: string) => Math.floor((s.length * 3) / 4) - (s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0);

const HeaderName = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/, 'header names must be HTTP tokens (no CR or LF)');

/**
 * Custom headers, minus the address, routing, MIME, signature and list headers (lib/mailHeaders.ts):
 * a `Bcc` here would become a recipient no contact, suppression or billing check ever saw.
 */
const CustomHeaders = z.record(HeaderName, z.string().max(998).regex(NO_CRLF, 'header values must not contain CR or LF')).superRefine((headers, ctx) => {
  for (const name of Object.keys(headers)) {
    if (isForbiddenHeader(name)) {
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: `header ${name} cannot be set: the service sets it, or it would add recipients or change the sender (use to, from, reply or subject)`,
      });
    }
  }
});

/** How far ahead `sendAt` may be (services/scheduledSends.ts MAX_SCHEDULE_AHEAD_MS, repeated: schemas import no services). */
const MAX_AHEAD_DAYS = 30;

/** A scheduled send's time: an ISO 8601 timestamp with its offset, at most 30 days ahead (past: now). */
export const SendAt = z.iso.datetime({ offset: true }).refine((v) => Date.parse(v) <= Date.now() + MAX_AHEAD_DAYS * 86_400_000, {
  message: `sendAt must be at most ${MAX_AHEAD_DAYS} days ahead`,
});

export const SendBody = z
  .object({
    to: z.union([Address, z.array(Address).min(1).max(100)]),
    subject: z.string().min(1).max(998).regex(NO_CRLF, 'subject must not contain line breaks').optional(),
    body: z.string().min(1).optional(),
    // The text/plain part's own Liquid source; omitted: the template's, or generated from the rendered body.
    text: z.string().min(1).optional(),
    template: z.string().uuid().optional(),
    from: Address.optional(),
    name: z.string().max(200).regex(NO_CRLF, 'name must not contain line breaks').optional(),
    subscribed: z.boolean().optional(),
    data: ContactDataInput.optional(),
    topics: TopicStatesInput.optional().describe('topic states of every recipient: topic id or slug → subscribed; an unknown topic is a 422'),
    headers: CustomHeaders.optional(),
    reply: Email.optional(),
    attachments: z.array(Attachment).max(ATTACHMENT_LIMITS.count, `at most ${ATTACHMENT_LIMITS.count} attachments`).optional(),
    track: TrackingChoiceIn.optional().describe(
      "first-party open and click tracking of these emails (docs/tracking.md); a key left out: the project's settings for the email's type",
    ),
    sendAt: SendAt.optional().describe(
      'ISO 8601 time to send at, at most 30 days ahead: the emails are stored SCHEDULED until then (PATCH /emails/:id reschedules, POST /emails/:id/cancel cancels); a time already past sends now',
    ),
  })
  .superRefine((v, ctx) => {
    if (!v.template) {
      if (v.subject === undefined) ctx.addIssue({ code: 'custom', path: ['subject'], message: 'subject is required when no template is given' });
      if (v.body === undefined) ctx.addIssue({ code: 'custom', path: ['body'], message: 'body is required when no template is given' });
    }
    const total = (v.attachments ?? []).reduce((n, a) => n + base64Bytes(a.content), 0);
    if (total > ATTACHMENT_LIMITS.totalBytes) {
      ctx.addIssue({
        code: 'too_big',
        origin: 'number',
        maximum: ATTACHMENT_LIMITS.totalBytes,
        path: ['attachments'],
        message: 'attachments exceed 10 MB in total',
      } as any);
    }
  });
export type SendBody = z.infer<typeof SendBody>;

export const SendOut = z.object({
  success: z.literal(true),
  data: z.object({
    emails: z.array(z.object({ contact: z.object({ id: z.string(), email: z.string() }), email: z.string().uuid() })),
    timestamp: z.string(),
  }),
});

/** At most this many emails per POST /v1/send/batch (each a whole /v1/send body). */
export const BATCH_MAX = 100;

const BatchItemError = z.object({
  error: z.object({
    code: z.string().describe('as /v1/send would answer: VALIDATION_ERROR, INTERNAL_SERVER_ERROR (unverified sender), LIMIT_REACHED, …'),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional().describe('`errors`: the field errors, with paths inside the item'),
  }),
});

/**
 * What the OpenAPI document shows: `emails`, each a /v1/send body. The route validates the shape
 * and size only (SendBatchShape) and each item on its own, so one bad item never fails the others.
 */
export const SendBatchBody = z.object({
  emails: z.array(SendBody).min(1).max(BATCH_MAX).describe(`1 to ${BATCH_MAX} emails, each what POST /v1/send takes`),
});
export const SendBatchShape = z.object({
  emails: z.array(z.unknown()).min(1).max(BATCH_MAX, `at most ${BATCH_MAX} emails per batch`),
});

export const SendBatchOut = z.object({
  success: z.literal(true),
  data: z.object({
    results: z
      .array(z.union([SendOut.shape.data.pick({ emails: true }), BatchItemError]))
      .describe('one per item, in request order: `{ emails }` as /v1/send answers, or `{ error }`'),
    timestamp: z.string(),
  }),
});
