import { z } from 'zod';
import { Email, Timestamp, Uuid } from './common';
import { Credentials } from './auth';

export const MeOut = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string().nullable(),
  locale: z.enum(['en', 'fr', 'de']).nullable().describe("the dashboard's language; null follows the browser"),
  emailVerified: z.boolean(),
  createdAt: Timestamp,
});

/** The dashboard's languages (web/src/i18n); null follows the browser. */
export const DashboardLocale = z.enum(['en', 'fr', 'de']);

/** What is given changes: an empty name clears it; a null locale follows the browser again. */
export const ProfileBody = z
  .object({
    name: z
      .string()
      .trim()
      .max(100)
      .nullable()
      .transform((n) => n || null)
      .optional(),
    locale: DashboardLocale.nullable().optional(),
  })
  .refine((b) => b.name !== undefined || b.locale !== undefined, { message: 'Give a name or a locale to change' });

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
