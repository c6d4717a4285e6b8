import { z } from 'zod';
import { Email } from './common';

/** At most this many addresses per POST /contacts/erase: each is its own transaction. */
export const MAX_ERASE_ADDRESSES = 100;

export const ContactDeleteQuery = z.object({
  erase: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional()
    .describe('true: erase the person everywhere (docs/privacy.md "Erasure"), not only the contact'),
});

export const EraseBody = z.object({
  emails: z.array(Email).min(1).max(MAX_ERASE_ADDRESSES).describe(`1 to ${MAX_ERASE_ADDRESSES} addresses, contacts of the project or not`),
});

export const ErasedOut = z.object({
  addresses: z.number().int().describe('distinct addresses erased (compared lowercase)'),
  contacts: z.number().int().describe('how many of them were contacts of the project'),
});

