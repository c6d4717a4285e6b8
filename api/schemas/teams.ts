import { z } from 'zod';
import { Email, Timestamp, Uuid } from './common';
import { ROLES } from '../../db/projects';

export const Role = z.enum(ROLES);

export const MemberParams = z.object({ id: Uuid, userId: Uuid });
export const InviteParams = z.object({ id: Uuid, inviteId: Uuid });

export const InviteBody = z.object({ email: Email, role: Role.default('MEMBER') });
export const RoleBody = z.object({ role: Role });

export const MemberOut = z.object({ userId: z.string(), email: z.string(), role: Role, emailVerified: z.boolean(), joinedAt: Timestamp });
export const InviteOut = z.object({
  id: z.string(),
  email: z.string(),
  role: Role,
  invitedBy: z.string().nullable(),
  createdAt: Timestamp,
  expiresAt: Timestamp.describe('the invitation link stops working then (7 days after it was last mailed)'),
  expired: z.boolean().describe('listed until withdrawn or made again; an expired invite cannot be accepted'),
});
export const TeamOut = z.object({ members: z.array(MemberOut), invites: z.array(InviteOut) });

export const SetupStateOut = z.object({
  hasDomain: z.boolean(),
  hasVerifiedDomain: z.boolean(),
  hasContact: z.boolean(),
  hasTemplate: z.boolean(),
  hasTrackedEvent: z.boolean(),
  hasSentEmail: z.boolean(),
  completed: z.number().int(),
  total: z.number().int(),
  done: z.boolean(),
});

export const SecurityOut = z.object({
  disabled: z.boolean(),
  window: z.object({ hours: z.number(), from: Timestamp, to: Timestamp }),
  sent: z.number().int(),
  bounced: z.number().int(),
  complained: z.number().int(),
  bounceRate: z.number(),
  complaintRate: z.number(),
  thresholds: z.object({ bounceRate: z.number(), complaintRate: z.number(), minSent: z.number().int() }),
  suspensions: z.array(
    z.object({ id: z.string(), reason: z.string(), sent: z.number().int(), bounced: z.number().int(), complained: z.number().int(), createdAt: Timestamp }),
  ),
});

export const ResetOut = z.object({
  success: z.literal(true),
  deleted: z.record(z.string(), z.number().int()).describe('rows deleted per table'),
  cancelledExecutions: z.number().int(),
});

/** Invite tokens are issued as base62; anything else cannot be one. */
const InviteToken = z
  .string()
  .trim()
  .regex(/^[0-9A-Za-z]{1,100}$/, 'not a token from an invitation email');
export const InviteTokenParams = z.object({ token: InviteToken });
export const InviteTokenBody = z.object({ token: InviteToken });
export const InviteOfferOut = z.object({ projectName: z.string(), role: Role, email: z.string(), expiresAt: Timestamp });
export const InviteAcceptedOut = z.object({ projectId: z.string(), role: Role });
