import { z } from 'zod';
import type { VerificationResult } from '../../services/verify';

// Only "a string of plausible size" is checked here: the format rules live in the verifier, so an
// odd address still gets a result whose `reasons` say what is wrong with it.
export const VerifyBody = z.object({
  email: z.string().trim().min(1, 'Email is required').max(320),
});

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
