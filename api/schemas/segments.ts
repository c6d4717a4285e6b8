import { z } from 'zod';
import { PageQuery, Timestamp } from './common';
import { ContactOut } from './contacts';
import { FilterTree } from './filters';
import { SEGMENT_TYPES } from '../../db/segments';

// Segment routes answer validation failures with the flat `{ error }` body (spec), so every
// message is a whole sentence naming its field.

export const CONDITION_REQUIRED = 'Condition is required and must be an object for DYNAMIC segments';

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The shape check of a DYNAMIC segment's condition; what the tree means is checked by db/filters when the route compiles it. */
function checkCondition(condition: unknown, ctx: z.RefinementCtx) {
  if (!isPlainObject(condition)) return void ctx.addIssue({ code: 'custom', path: ['condition'], message: CONDITION_REQUIRED });
  const parsed = FilterTree.safeParse(condition);
  if (parsed.success) return;
  for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', path: ['condition', ...issue.path] as (string | number)[], message: issue.message });
}

const text = (label: string) => z.string({ error: (issue) => (issue.input === undefined ? `${label} is required` : `${label} must be a string`) });

const fields = {
  name: text('Name').trim().min(1, 'Name is required').max(100, 'Name must be at most 100 characters'),
  description: text('Description').max(500, 'Description must be at most 500 characters').nullable().optional(),
  condition: z.unknown().optional().describe('filter tree (FilterTree); required for DYNAMIC segments, ignored for STATIC ones'),
  trackMembership: z.boolean({ error: 'trackMembership must be a boolean' }),
};

/**
 * The spec's two listings conflict on a STATIC segment sent with a condition (ignored, or refused);
 * we ignore it: it is neither validated nor stored (docs/api.md "Segments").
 */
export const SegmentCreate = z
  .object({
    ...fields,
    type: z.enum(SEGMENT_TYPES, { error: `Type must be one of ${SEGMENT_TYPES.join(', ')}` }).default('DYNAMIC'),
    trackMembership: fields.trackMembership.default(false),
  })
  .superRefine((v, ctx) => {
    if (v.type === 'DYNAMIC') checkCondition(v.condition, ctx);
  })
  // Stored as parsed, so keys the tree schema does not know never reach the database.
  .transform((v) => ({ ...v, condition: v.type === 'DYNAMIC' ? FilterTree.parse(v.condition) : undefined }));
export type SegmentCreate = z.infer<typeof SegmentCreate>;

/** `condition` applies to DYNAMIC segments only; the route refuses it for a STATIC one. */
export const SegmentUpdate = z
  .object({ ...fields, trackMembership: fields.trackMembership.optional() })
  .partial()
  .superRefine((v, ctx) => {
    if (v.condition !== undefined) checkCondition(v.condition, ctx);
  })
  .refine((v) => Object.values(v).some((x) => x !== undefined), { message: 'Nothing to update' })
  .transform((v) => ({ ...v, condition: v.condition === undefined ? undefined : FilterTree.parse(v.condition) }));
export type SegmentUpdate = z.infer<typeof SegmentUpdate>;

const MAX_MEMBER_EMAILS = 1000;

const EmailList = z
  .array(text('Each email').trim().max(320, 'Each email must be at most 320 characters').email('Each email must be a valid email address'), {
    error: (issue) => (issue.input === undefined ? 'Emails are required' : 'Emails must be an array of email addresses'),
  })
  .min(1, 'Emails must list at least one address')
  .max(MAX_MEMBER_EMAILS, `Emails may list at most ${MAX_MEMBER_EMAILS} addresses per call`);

export const MembersAdd = z.object({
  emails: EmailList,
  createMissing: z.boolean({ error: 'createMissing must be a boolean' }).optional(),
  subscribed: z.boolean({ error: 'subscribed must be a boolean' }).optional(),
});

export const MembersRemove = z.object({ emails: EmailList });

export const SegmentOut = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string().describe('names the entry/exit events: segment.<slug>.entry, segment.<slug>.exit; fixed at creation'),
  description: z.string().nullable(),
  type: z.enum(SEGMENT_TYPES),
  condition: z.unknown().describe('filter tree; null for STATIC segments'),
  trackMembership: z.boolean(),
  memberCount: z.number().int().describe('cached: set at creation, by refresh, compute and member changes'),
  projectId: z.string(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const SegmentListOut = z.array(SegmentOut);

/** The spec's page/pageSize, plus an optional cursor: a deep page by keyset instead of OFFSET. */
export const MemberPageQuery = PageQuery.extend({
  cursor: z
    .string()
    .min(1)
    .max(1000)
    .optional()
    .describe("the previous page's cursor: the next page by keyset (cheap at any depth); page is then the cursor's and the page param is ignored"),
});

export const MemberPageOut = z.object({
  data: z.array(ContactOut),
  total: z.number().int(),
  estimated: z
    .literal(true)
    .optional()
    .describe(
      "present when `total` is an estimate: a DYNAMIC segment's live match in a project of at least COUNT_ESTIMATE_THRESHOLD contacts, estimated as POST /contacts/count is",
    ),
  page: z.number().int(),
  pageSize: z.number().int(),
  cursor: z.string().nullable().describe('pass as cursor for the next page; null on the last page'),
  hasMore: z.boolean(),
});

export const MembersAddOut = z.object({ added: z.number().int(), notFound: z.array(z.string()) });
export const MembersRemoveOut = z.object({ removed: z.number().int(), notFound: z.array(z.string()) });
export const ComputeOut = z.object({ memberCount: z.number().int(), entered: z.number().int(), exited: z.number().int() });
export const ComputeRunningOut = z.object({ running: z.literal(true), workflowId: z.string() });
export const RefreshOut = z.object({ memberCount: z.number().int() });
