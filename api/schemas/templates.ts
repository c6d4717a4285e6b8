import { z } from 'zod';
import { Email, MessageContentOut, PageQuery, Timestamp } from './common';
import { TEMPLATE_SORTS, TEMPLATE_TYPES } from '../../db/templates';
import { checkTemplate } from '../../services/render';
import { EmailDocument } from '../../lib/emailDocument';
import { LOCALE } from '../../lib/templateContent';
import { ContactDataInput } from './contacts';

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

/**
 * A block document in a request. It is validated (and compiled) by the handler, not here, so that a
 * document that does not validate answers 422 naming the block (`document.blocks.3.src`) instead of
 * the flat 400 of the other fields: the schema documents its shape, and hands anything on as sent.
 */
export const documentField = EmailDocument.nullable()
  .optional()
  // JSON Schema generators (zod's toJSONSchema, as the MCP SDK calls it) probe a catch for a static
  // default by calling it with no context: there is none, so they get none.
  .catch((ctx) => ctx?.input as EmailDocument)
  .describe('The block document (editor "blocks"); validated with the compiler, a problem is a 422 naming its block');

export const Editor = z.enum(['html', 'blocks'], { error: 'Editor must be html or blocks' });

/** One language's content beside the default (a blocks template gives a document, an HTML one a body). */
const VariantIn = z.object({
  subject: fields.subject,
  body: fields.body.optional(),
  document: documentField,
  text: fields.text,
});

export const VariantsIn = z
  .record(z.string().regex(LOCALE, 'Variants are keyed by locale, like en, fr or pt-BR'), VariantIn)
  .refine((v) => Object.keys(v).length <= 20, 'At most 20 language variants')
  .nullable()
  .optional()
  .describe('Content per locale; a contact whose data.locale matches (exactly, then by language) gets it');

/** The content fields a version holds (draft, publish, versions). */
const content = {
  subject: fields.subject,
  editor: Editor.default('html'),
  body: fields.body.optional().describe('HTML (editor "html"); for a blocks template it is compiled from `document` and read-only'),
  document: documentField,
  text: fields.text,
  variants: VariantsIn,
};

/** Which of body and document the editor needs, as flat messages naming the field. */
function editorFields(v: { editor?: string; body?: string | null; document?: unknown }, ctx: z.RefinementCtx) {
  if (v.editor === 'blocks') {
    if (v.body !== undefined && v.body !== null)
      ctx.addIssue({ code: 'custom', path: ['body'], message: 'Body is compiled from the document for a blocks template: send document, not body' });
    if (v.document === undefined || v.document === null)
      ctx.addIssue({ code: 'custom', path: ['document'], message: 'Document is required for a blocks template' });
  } else if (v.editor === 'html' && (v.body === undefined || v.body === null)) {
    ctx.addIssue({ code: 'custom', path: ['body'], message: 'Body is required' });
  }
}

export const TemplateCreate = z.object({ ...fields, ...content, type: Type.default('MARKETING') }).superRefine(editorFields);

export const TemplateUpdate = z
  .object({ ...fields, type: Type, editor: Editor, document: documentField, variants: VariantsIn })
  .partial()
  .refine((v) => Object.values(v).some((x) => x !== undefined), { message: 'Nothing to update' });

/** PUT /templates/:id/draft: the whole draft content. */
export const TemplateContentIn = z.object(content).superRefine(editorFields);

export const PublishIn = z.object({ note: z.string().max(500, 'Note must be at most 500 characters').optional() });

export const VersionParams = z.object({
  id: z.uuid(),
  n: z.coerce.number().int().min(1),
});

export const TemplateListQuery = PageQuery.extend({
  type: Type.optional(),
  search: z.string({ error: 'Search must be a single string' }).trim().max(200, 'Search must be at most 200 characters').optional(),
  // Unknown sort or direction values fall back to the defaults instead of failing (spec).
  sort: z.enum(TEMPLATE_SORTS).catch('createdAt'),
  dir: z.enum(['asc', 'desc']).catch('desc'),
});

const VariantOut = z.object({
  subject: z.string(),
  body: z.string().describe('HTML; compiled from the document for a blocks template'),
  document: EmailDocument.nullable(),
  text: z.string().nullable(),
});

const contentOut = {
  editor: Editor,
  document: EmailDocument.nullable().describe('The block document of a blocks template; `body` is its compiled HTML'),
  variants: z.record(z.string(), VariantOut).nullable(),
};

export const TemplateOut = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  ...MessageContentOut,
  ...contentOut,
  type: Type,
  projectId: z.string(),
  publishedVersion: z.number().int().describe('The version senders use'),
  hasDraft: z.boolean().describe('Whether unpublished changes are saved'),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

/** A template's content: its draft, or one published version. */
export const TemplateContentOut = z.object({
  subject: z.string(),
  body: z.string(),
  text: z.string().nullable(),
  ...contentOut,
  preheader: z.string().nullable().describe("The document's preheader (blocks); null for HTML"),
  isDraft: z.boolean().describe('false: no draft is saved and this is the published content'),
  updatedAt: Timestamp.nullable(),
});

const VersionMeta = {
  number: z.number().int(),
  createdBy: z.object({ id: z.string(), name: z.string().nullable(), email: z.string() }).nullable(),
  createdAt: Timestamp,
  note: z.string().nullable(),
};

export const TemplateVersionList = z.object({ data: z.array(z.object(VersionMeta)) });

export const TemplateVersionOut = z.object({
  ...VersionMeta,
  subject: z.string(),
  body: z.string(),
  text: z.string().nullable(),
  ...contentOut,
  preheader: z.string().nullable(),
});

export const StarterList = z.object({
  data: z.array(z.object({ id: z.string(), name: z.string(), description: z.string(), subject: z.string(), document: EmailDocument })),
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
  body: z.string().optional().describe('HTML source (editor "html"); required unless a document is given'),
  text: z.string().nullable().optional().describe('text/plain source; absent or null: generated from the rendered body'),
  editor: Editor.optional(),
  document: EmailDocument.nullable().optional().describe('A block document, compiled with the brand (editor "blocks")'),
  variants: z
    .record(
      z.string(),
      z.object({
        subject: z.string().max(998),
        body: z.string().optional(),
        document: EmailDocument.nullable().optional(),
        text: z.string().nullable().optional(),
      }),
    )
    .nullable()
    .optional(),
  locale: z.string().max(35).optional().describe("Preview this locale's variant (exact, then language, then the default)"),
  type: Type.optional().describe('The email type, for the checks (MARKETING needs an unsubscribe link); default MARKETING'),
  data: z.record(z.string(), z.unknown()).optional().describe('variables; they override those of `contactId`'),
  contactId: z
    .string()
    .regex(/^cnt_[0-9A-Za-z]{1,64}$/, 'contactId must be a contact id (cnt_…)')
    .optional()
    .describe("render with this contact's fields, email, id and subscription links"),
});

export const Check = z.object({
  rule: z.enum([
    'unknown-variable',
    'no-unsubscribe',
    'image-alt',
    'link-missing',
    'link-insecure',
    'html-size',
    'subject-empty',
    'subject-long',
    'no-preheader',
  ]),
  severity: z.enum(['warning', 'error']),
  message: z.string(),
  blockId: z.string().optional(),
});

export const TemplatePreviewOut = z.object({
  subject: z.string(),
  html: z.string(),
  text: z.string(),
  locale: z.string().nullable().describe('The variant shown; null: the default content'),
  checks: z.array(Check).describe('Advice; never blocks saving'),
});

/** POST /templates/:id/test: one test send of the draft (or the published content when no draft is saved). */
export const TemplateTestIn = z.object({
  to: Email.optional().describe("The address to send to; the signed-in person's when absent (required with an API key)"),
  locale: z.string().max(35).optional().describe("Send this locale's variant (exact, then language, then the default)"),
  data: ContactDataInput.optional().describe("Variables for this send only: they are not stored on the recipient's contact"),
});

export const TemplateTestOut = z.object({
  email: z.string().uuid().describe('The email row; GET /emails/:id follows its delivery'),
  to: z.string(),
  version: z.enum(['draft', 'published']).describe('What was sent: the saved draft, or the published content when there is none'),
  locale: z.string().nullable().describe('The variant sent; null: the default content'),
});
