import { z } from 'zod';
import type { VerificationResult } from '../../services/verify';
import { Email } from './common';

// The spec types `email` as an email: the same rule as /v1/track refuses a malformed one (422). The
// verifier's stricter rules (RFC lengths, DNS, disposable, typo) answer 200 with `reasons`.
export const VerifyBody = z.object({ email: Email });

const VerificationOut: z.ZodType<VerificationResult> = z.object({
  email: z.string(),
  valid: z.boolean(),
  isDisposable: z.boolean(),
  isAlias: z.boolean().describe('a role address such as info@, admin@, support@, noreply@'),
  isTypo: z.boolean(),
  isPlusAddressed: z.boolean(),
  isPersonalEmail: z.boolean().describe('the domain is a free mailbox provider'),
  domainExists: z.boolean(),
  hasWebsite: z.boolean(),
  hasMxRecords: z.boolean(),
  reasons: z.array(z.string()).describe('why valid is false; empty when valid'),
  suggestion: z.string().optional().describe('the likely intended address when isTypo'),
});

export const VerifyOut = z.object({ success: z.literal(true), data: VerificationOut });
