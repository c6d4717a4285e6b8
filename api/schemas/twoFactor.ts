import { z } from 'zod';

/** Answered by POST /auth/login instead of the user when the account has 2FA: no session yet. */
export const TwoFactorPending = z.object({
  twoFactorRequired: z.literal(true).describe('send the code to POST /auth/login/two-factor; the ticket is an httpOnly cookie valid for 5 minutes'),
});

const Code = z.string().trim().min(1).max(20).describe('the 6-digit code of the authenticator app');
const RecoveryCode = z.string().trim().min(1).max(64).describe('one of the recovery codes shown at enrolment; each works once');

/** One second factor: a code from the app, or a recovery code. */
export const SecondFactorBody = z
  .object({ code: Code.optional(), recoveryCode: RecoveryCode.optional() })
  .refine((v) => (v.code === undefined) !== (v.recoveryCode === undefined), { message: 'Send either code or recoveryCode', path: ['code'] });

export const EnableBody = z.object({ code: Code });

export const TwoFactorStatusOut = z.object({
  enabled: z.boolean(),
  enabledAt: z.string().nullable(),
  recoveryCodesLeft: z.number().int(),
});

export const EnrolmentOut = z.object({
  secret: z.string().describe('base32, for apps that cannot scan the QR code'),
  otpauthUrl: z.string(),
  qrCode: z.string().describe('the otpauth URL as a QR code: a data:image/png;base64 URL'),
});

export const RecoveryCodesOut = z.object({
  recoveryCodes: z.array(z.string()).describe('shown this once; only their hashes are stored'),
});
