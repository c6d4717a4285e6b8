import { z } from 'zod';
import { Email } from './common';
import { DATA_LIMITS } from '../../lib/contactData';
import { limit } from './analytics';
import { FilterTree } from './filters';

const LOOKUP_MAX_EMAILS = 500;

export const LookupBody = z.object({
  emails: z.array(Email).max(LOOKUP_MAX_EMAILS).describe(`up to ${LOOKUP_MAX_EMAILS} addresses; normalised (trimmed, lowercased) and de-duplicated`),
});

export const LookupOut = z.object({
  found: z.array(z.object({ id: z.string(), email: z.string(), subscribed: z.boolean() })).describe('in request order'),
  missing: z.array(z.string()).describe('normalised addresses with no contact, in request order'),
});

/** The filter builder's live count (the dashboard asks while a condition is edited). */
export const CountBody = z.object({ condition: FilterTree.describe('a filter tree, as segments take it') });
/** A count's `estimated` flag, as the live count and a campaign's audience count answer it. */
export const CountEstimated = z
  .literal(true)
  .optional()
  .describe(
    'present when `count` is an estimate from a block sample: in a project of at least COUNT_ESTIMATE_THRESHOLD contacts, a count is estimated when the sample puts its standard error at most 2.5 % of it (a 95 % interval of about ±5 %), and exact otherwise',
  );

export const CountOut = z.object({
  count: z.number().int().describe('contacts of the project the condition matches now'),
  estimated: CountEstimated,
});

export const STANDARD_FIELDS = ['email', 'subscribed', 'createdAt', 'updatedAt'] as const;

const dataKey = `[^.\\u0000-\\u001f\\u007f]{1,${DATA_LIMITS.maxKeyLength}}`;
const FIELD = new RegExp(`^(?:${STANDARD_FIELDS.join('|')}|data\\.${dataKey}(?:\\.${dataKey}){0,${DATA_LIMITS.maxDepth - 1}})$`);

/** `email`, `subscribed`, `createdAt`, `updatedAt` or `data.<key>[.<key>…]`; anything else is no field (404). */
export const FieldParams = z.object({
  field: z.string().max(1000).regex(FIELD).describe('a standard field or data.<path>, e.g. data.plan or data.profile.tier'),
});

export const FieldValuesQuery = z.object({ limit: limit(100, 100) });

export const FieldValuesOut = z.object({
  field: z.string(),
  values: z.array(z.object({ value: z.unknown().describe('as stored (string, number, boolean, …)'), count: z.number().int() })).describe('most frequent first'),
});

const Named = z.object({ id: z.string(), name: z.string() });

export const FieldUsageOut = z.object({
  field: z.string(),
  segments: z.array(Named),
  campaigns: z.array(Named),
  workflows: z.array(Named),
});

export const FieldDeleteOut = z.object({
  field: z.string(),
  contactsUpdated: z.number().int().describe('contacts that had the field'),
});
