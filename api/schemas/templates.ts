import { z } from 'zod';
import { MessageContentOut, PageQuery, Timestamp } from './common';
import { TEMPLATE_SORTS, TEMPLATE_TYPES } from '../../db/templates';
import { checkTemplate } from '../../services/render';

// Template routes answer validation failures with the flat `{ error }` body, so every message is a
// whole sentence naming its field ("From address is required").
const text = (label: string) => z.string({ error: (issue) => (issue.input === undefined ? `${label} is required` : `${label} must be a string`) });

const noLineBreaks = (label: string) => [(s: string) => !/[\r\n]/.test(s), `${label} must not contain line breaks`] as const;

/** Subject and body are stored as Liquid sources; one that cannot parse would fail every send. */
const liquid = (label: string) => (source: string, ctx: z.RefinementCtx) => {
  const problem = checkTemplate(source);
  if (problem) ctx.addIssue({ code: 'custom', message: `${label} is not a valid template: ${problem}` });
};

const email = (label: string) => text(label).trim().max(320, `${label} is too long`).email(`${label} must be a valid email address`);

const Type = z.enum(TEMPLATE_TYPES, { error: `Type must be one of ${TEMPLATE_TYPES.join(', ')}` });

const fields = {
  name: text('Name').trim().min(1, 'Name is required').max(200, 'Name must be at most 200 characters'),
  description: text('Description').max(2000, 'Description must be at most 2000 characters').nullable().optional(),
  subject: text('Subject')
    .min(1, 'Subject is required')
    .max(998, 'Subject must be at most 998 characters')
    .refine(...noLineBreaks('Subject'))
    .superRefine(liquid('Subject')),
  body: text('Body').min(1, 'Body is required').superRefine(liquid('Body')),
  // The text/plain part's own source; null or omitted: generated from the rendered body.
  text: text('Text').min(1, 'Text must not be empty (null generates it from the body)').superRefine(liquid('Text')).nullable().optional(),
  from: email('From address'),
  // Goes into the From header: a line break would let it inject headers.
  fromName: text('From name')
    .max(200, 'From name must be at most 200 characters')
    .refine(...noLineBreaks('From name'))
    .nullable()
    .optional(),
  replyTo: email('Reply-to address').nullable().optional(),
};

export const TemplateCreate = z.object({ ...fields, type: Type.default('MARKETING') });

export const TemplateUpdate = z
  .object({ ...fields, type: Type })
  .partial()
  .refine((v) => Object.values(v).some((x) => x !== undefined), { message: 'Nothing to update' });

export const TemplateListQuery = PageQuery.extend({
  type: Type.optional(),
  search: z.string({ error: 'Search must be a single string' }).trim().max(200, 'Search must be at most 200 characters').optional(),
  // Unknown sort or direction values fall back to the defaults instead of failing (spec).
  sort: z.enum(TEMPLATE_SORTS).catch('createdAt'),
  dir: z.enum(['asc', 'desc']).catch('desc'),
});

export const TemplateOut = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  ...MessageContentOut,
  type: Type,
  projectId: z.string(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const TemplatePage = z.object({
  data: z.array(TemplateOut),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
  totalPages: z.number().int(),
});

export const TemplateUsage = z.object({
  campaigns: z.array(z.object({ id: z.string(), name: z.string() })),
  workflows: z.array(z.object({ id: z.string(), name: z.string(), stepId: z.string() })),
});

/**
 * POST /templates/preview: sources as the editor holds them, rendered as a send would. Only types and
 * sizes are checked here; a Liquid problem is the handler's 422, one field error per part.
 */
export const TemplatePreviewIn = z.object({
  subject: z.string().max(998, 'Subject must be at most 998 characters'),
  body: z.string(),
  text: z.string().nullable().optional().describe('text/plain source; absent or null: generated from the rendered body'),
  data: z.record(z.string(), z.unknown()).optional().describe('variables; they override those of `contactId`'),
  contactId: z
    .string()
    .regex(/^cnt_[0-9A-Za-z]{1,64}$/, 'contactId must be a contact id (cnt_…)')
    .optional()
    .describe("render with this contact's fields, email, id and subscription links"),
});

export const TemplatePreviewOut = z.object({
  subject: z.string(),
  html: z.string(),
  text: z.string(),
});
