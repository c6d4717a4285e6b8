import { z } from 'zod';
import { Timestamp, Uuid } from './common';
import { parseDomain } from '../../db/domains';

/** Accepts what people paste (any case, trailing dot, unicode) and yields the normalized name. */
export const DomainName = z
  .string()
  .max(300)
  .transform((value, ctx) => {
    const parsed = parseDomain(value);
    if ('error' in parsed) {
      ctx.addIssue({ code: 'custom', message: parsed.error, input: value });
      return z.NEVER;
    }
    return parsed.domain;
  });

export const DomainCreate = z.object({ domain: DomainName });
export const ProjectDomainsParams = z.object({ projectId: Uuid });

const DomainRecordOut = z.object({
  type: z.enum(['TXT', 'MX']),
  name: z.string(),
  value: z.string().describe('for MX: `<priority> <exchange>`'),
  purpose: z
    .enum(['ownership', 'spf', 'dmarc', 'dkim', 'inbound', 'bounce'])
    .describe('inbound: MX of `inbound.<domain>` (mail to the project); bounce: MX of the VERP return-path domain (SMTP transport)'),
  required: z.boolean(),
  valid: z.boolean(),
  problem: z.string().nullable().describe('why the last check did not find the record, in a sentence; null when found or not checked yet'),
});

export const DomainOut = z.object({
  id: z.string(),
  domain: z.string(),
  projectId: z.string(),
  status: z.enum(['PENDING', 'VERIFIED']),
  records: z.array(DomainRecordOut),
  lastCheckedAt: Timestamp.nullable(),
  verifiedAt: Timestamp.nullable(),
  createdAt: Timestamp,
});
