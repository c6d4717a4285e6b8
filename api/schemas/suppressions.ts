import { z } from 'zod';
import { Email, Timestamp } from './common';
import { Instant, limit } from './analytics';
import { SUPPRESSION_REASONS } from '../../db/suppressions';

/** At most this many addresses per POST /suppressions. */
export const MAX_SUPPRESSIONS_PER_REQUEST = 1000;

export const SuppressionReason = z.enum(SUPPRESSION_REASONS).describe('HARD_BOUNCE and COMPLAINT are added by provider events; the API adds MANUAL');

export const SuppressionListQuery = z.object({
  limit: limit(50, 200),
  cursor: z.string().min(1).max(1000).optional().describe('the `cursor` of the previous page'),
  search: z.string().trim().min(1).max(320).optional().describe('part of the address (case-insensitive substring)'),
  reason: SuppressionReason.optional(),
});

export const SuppressionCreate = z.object({
  emails: z.array(Email).min(1).max(MAX_SUPPRESSIONS_PER_REQUEST).describe(`1 to ${MAX_SUPPRESSIONS_PER_REQUEST} addresses; stored lowercase`),
  reason: z.literal('MANUAL').default('MANUAL').describe('only MANUAL entries are added through the API'),
  expiresAt: Instant.optional()
    .refine((d) => d === undefined || d.getTime() > Date.now(), 'must be in the future')
    .describe('when the entries stop suppressing; omitted: never'),
});

export const SuppressionParams = z.object({ email: Email.describe('the address (any case)') });

export const SuppressionOut = z.object({
  email: z.string().describe('lowercase'),
  reason: SuppressionReason,
  emailId: z.string().nullable().describe('the email whose bounce or complaint added it'),
  createdAt: Timestamp,
  expiresAt: Timestamp.nullable().describe('null: suppresses until deleted; an entry past its expiry no longer suppresses'),
});

export const SuppressionPage = z.object({
  data: z.array(SuppressionOut),
  cursor: z.string().nullable().describe('pass as `cursor` for the next page; null on the last page'),
  hasMore: z.boolean(),
});

export const SuppressionAdded = z.object({
  added: z.array(z.string()).describe('addresses new on the list (lowercase)'),
  existing: z.array(z.string()).describe('addresses already on it, left unchanged (their reason and expiry kept)'),
});
