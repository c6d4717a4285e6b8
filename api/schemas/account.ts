import { z } from 'zod';
import { Email } from './common';
import { Credentials } from './auth';

/** Tokens are issued as base62; anything else cannot be one, so it is refused before the database is asked. */
const Token = z
  .string()
  .trim()
  .regex(/^[0-9A-Za-z]{1,100}$/, 'not a token from one of our emails');

export const TokenBody = z.object({ token: Token });
export const PasswordResetRequest = z.object({ email: Email });
export const PasswordReset = z.object({ token: Token, password: Credentials.shape.password });

export const Accepted = z.object({ success: z.literal(true), message: z.string() });
/** A reset signs in, unless the account has a second factor: then its code comes next (POST /auth/login/two-factor). */
export const PasswordResetDone = Accepted.extend({ twoFactorRequired: z.boolean() });
export const VerificationRequested = z.object({ success: z.literal(true), alreadyVerified: z.boolean(), message: z.string() });
export const VerifiedUser = z.object({ id: z.string(), email: z.string(), emailVerified: z.literal(true) });

const OAuthProvider = z.object({ id: z.string(), clientId: z.string() });
export const OAuthConfig = z.object({ providers: z.array(OAuthProvider) });
