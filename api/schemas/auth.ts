import { z } from 'zod';
import { Email } from './common';

export const Credentials = z.object({
  email: Email,
  password: z.string().min(8, 'Password must be at least 8 characters').max(1024),
});

export const UserOut = z.object({ id: z.string(), email: z.string() });

/** Login does not repeat signup's length rule: a wrong password is just wrong. */
export const Login = z.object({ email: Email, password: z.string().min(1).max(1024) });

/** GET /auth/logout (the spec's form; POST /auth/logout answers 204). */
export const LogoutOut = z.object({ success: z.literal(true) });
