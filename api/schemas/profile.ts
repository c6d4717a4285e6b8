import { z } from 'zod';
import { Email, Timestamp, Uuid } from './common';
import { Credentials } from './auth';

export const MeOut = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string().nullable(),
  emailVerified: z.boolean(),
  createdAt: Timestamp,
});

/** An empty name clears it. */
export const NameBody = z.object({
  name: z
    .string()
    .trim()
    .max(100)
    .nullable()
    .transform((n) => n || null),
});

/** The current password is only compared, so any length is "wrong" rather than invalid. */
const Current = z.string().min(1, 'Enter your current password').max(1024);

export const PasswordChange = z.object({ currentPassword: Current, newPassword: Credentials.shape.password });
export const EmailChange = z.object({ email: Email, password: Current });

export const Done = z.object({ success: z.literal(true), message: z.string() });
export const EmailChanged = z.object({ id: z.string(), email: z.string(), emailVerified: z.literal(true) });

export const SessionOut = z.object({
  id: z.string(),
  current: z.boolean().describe('the session of this request'),
  userAgent: z.string().nullable(),
  ip: z.string().nullable(),
  createdAt: Timestamp,
  lastSeenAt: Timestamp.describe('moves at most once a minute'),
});
export const SessionParams = z.object({ id: Uuid });
