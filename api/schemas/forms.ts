import { z } from 'zod';
import { Timestamp } from './common';
import { TopicSlug } from './topics';
import { DATA_LIMITS, RESERVED_DATA_KEYS } from '../../lib/contactData';
import { FORM_FIELD_TYPES } from '../../lib/formFields';

const MAX_FIELDS = 30;
const MAX_OPTIONS = 50;

// A top-level contact data key (lib/contactData dataProblems): no "." (it addresses nested fields),
// no control characters, none of the reserved names; "_" opens the form's own names (lib/formFields).
const FieldKey = z
  .string()
  .min(1)
  .max(DATA_LIMITS.maxKeyLength)
  .regex(/^[^.\u0000-\u001f\u007f]+$/, 'a field key may not contain "." or control characters')
  .refine((k) => !k.startsWith('_'), 'a field key may not start with "_" (the form uses those names itself)')
  .refine((k) => !RESERVED_DATA_KEYS.has(k), 'this key is reserved (the email field is always part of the form)')
  .describe('the contact data key the value is stored under (data.<key>)');

export const FormField = z
  .object({
    key: FieldKey,
    label: z.string().trim().min(1).max(200),
    type: z.enum(FORM_FIELD_TYPES).describe('text and select store a string, number a number, checkbox a boolean, date an ISO date (YYYY-MM-DD)'),
    required: z.boolean().default(false),
    options: z
      .array(z.string().trim().min(1).max(200))
      .min(1)
      .max(MAX_OPTIONS)
      .optional()
      .describe('the choices of a select (required for it, refused for the others)'),
  })
  .strict()
  .superRefine((f, ctx) => {
    if (f.type === 'select' && !f.options) ctx.addIssue({ code: 'custom', path: ['options'], message: 'a select needs its options' });
    if (f.type !== 'select' && f.options) ctx.addIssue({ code: 'custom', path: ['options'], message: 'only a select has options' });
    if (f.options && new Set(f.options).size !== f.options.length) ctx.addIssue({ code: 'custom', path: ['options'], message: 'options must be different' });
  });

const Fields = z
  .array(FormField)
  .max(MAX_FIELDS)
  .superRefine((fields, ctx) => {
    const seen = new Set<string>();
    fields.forEach((f, i) => {
      if (seen.has(f.key)) ctx.addIssue({ code: 'custom', path: [i, 'key'], message: `the key "${f.key}" is used by another field` });
      seen.add(f.key);
    });
  })
  .describe(`up to ${MAX_FIELDS} fields after the implicit email field`);

const Topics = z
  .array(TopicSlug)
  .max(50)
  .refine((t) => new Set(t).size === t.length, 'each topic once')
  .describe('slugs of topics of the project a submission subscribes to');

const RedirectUrl = z
  .string()
  .max(2000)
  .url()
  .refine((u) => /^https?:\/\//i.test(u), 'an http or https URL')
  .nullable()
  .describe('where a submission is sent (303) instead of the success page');

const SuccessMessage = z.string().trim().min(1).max(1000).nullable().describe('shown after a submission; default: a short thank-you');

const DoubleOptIn = z
  .boolean()
  .nullable()
  .describe(
    "true: every submission waits for the emailed confirmation (needs the project's doubleOptIn settings); false: never; null: the project's settings decide",
  );

export const FormCreate = z.object({
  name: z.string().trim().min(1).max(200),
  fields: Fields.default([]),
  topics: Topics.default([]),
  doubleOptIn: DoubleOptIn.default(null),
  successMessage: SuccessMessage.default(null),
  redirectUrl: RedirectUrl.default(null),
});

export const FormUpdate = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    fields: Fields.optional(),
    topics: Topics.optional(),
    doubleOptIn: DoubleOptIn.optional(),
    successMessage: SuccessMessage.optional(),
    redirectUrl: RedirectUrl.optional(),
  })
  .strict();

export const FormOut = z.object({
  id: z.string(),
  name: z.string(),
  fields: z.array(
    z.object({
      key: z.string(),
      label: z.string(),
      type: z.enum(FORM_FIELD_TYPES),
      required: z.boolean(),
      options: z.array(z.string()).optional(),
    }),
  ),
  topics: z.array(z.string()),
  doubleOptIn: z.boolean().nullable(),
  successMessage: z.string().nullable(),
  redirectUrl: z.string().nullable(),
  publicUrl: z.string().describe('the hosted page (absolute)'),
  embedHtml: z.string().describe('a plain HTML form posting to the hosted page, for any site'),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const FormListOut = z.object({ data: z.array(FormOut) });
