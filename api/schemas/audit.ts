import { z } from 'zod';
import { PageQuery, Timestamp } from './common';
import { Instant } from './analytics';
import { AUDIT_ACTIONS } from '../../db/auditLog';

export const AuditQuery = PageQuery.extend({
  action: z.enum(AUDIT_ACTIONS).optional(),
  actor: z.string().trim().min(1).max(100).optional().describe('a user id, `secret key` or `system`'),
  from: Instant.optional().describe('at or after (inclusive)'),
  to: Instant.optional().describe('before (exclusive)'),
});

export const AuditEntryOut = z.object({
  id: z.string(),
  at: Timestamp,
  actor: z.string().describe('the user id, `secret key` or `system`'),
  actorEmail: z.string().nullable().describe("the acting user's current sign-in address; null for `secret key`, `system` or a deleted account"),
  action: z.enum(AUDIT_ACTIONS),
  target: z.object({
    type: z.string(),
    id: z.string().nullable(),
    name: z
      .string()
      .nullable()
      .describe(
        "the target's current name, read when listing: the project's name, a member's or invitee's address, an endpoint's URL, a contact's address, a field or event name, a template's name…; for a deleted thing the name its entry kept (never a contact's address); null when unknown",
      ),
  }),
  contacts: z.array(z.string()).describe('the current addresses of the contacts the entry lists by id (suppressions); erased contacts are left out'),
  summary: z.string().describe('one readable line: what was done to what'),
  details: z.record(z.string(), z.unknown()).nullable(),
  ip: z.string().nullable(),
});

export const AuditPageOut = z.object({
  project: z.object({ id: z.string(), name: z.string().nullable() }),
  data: z.array(AuditEntryOut),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
  totalPages: z.number().int(),
});
