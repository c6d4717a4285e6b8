import { z } from 'zod';
import { Timestamp } from './common';

/** A cap per category for the calendar month; null means none. Omitted categories keep their cap. */
const Cap = z.number().int().min(0).max(2_000_000_000).nullable();
export const LimitsBody = z
  .object({ emails: Cap.optional(), contacts: Cap.optional() })
  .strict()
  .refine((v) => v.emails !== undefined || v.contacts !== undefined, { message: 'Give emails and/or contacts' });

export const LimitsOut = z.object({ emails: z.number().int().nullable(), contacts: z.number().int().nullable() });

const Usage = z.object({ used: z.number().int(), limit: z.number().int().nullable() });
export const ConsumptionOut = z.object({
  period: z.object({ start: Timestamp, end: Timestamp }),
  emails: Usage,
  contacts: Usage,
});

export const InvoiceOut = z.object({
  id: z.string(),
  number: z.string().nullable(),
  status: z.string().nullable(),
  amountDue: z.number().int().nullable(),
  amountPaid: z.number().int().nullable(),
  currency: z.string().nullable(),
  hostedInvoiceUrl: z.string().nullable(),
  invoicePdf: z.string().nullable(),
  periodStart: Timestamp.nullable(),
  periodEnd: Timestamp.nullable(),
  createdAt: Timestamp,
});

export const SessionOut = z.object({ url: z.string() });

/** The parts of a Stripe event this server reads; everything else in it is ignored. */
export const StripeEvent = z.object({
  id: z.string().min(1).max(255),
  type: z.string().min(1).max(255),
  data: z.object({ object: z.record(z.string(), z.unknown()) }),
});

/** What the Stripe webhook did with an event: applied, ignored (a type this server does not act on) or duplicate (an id already handled). */
export const BillingWebhookOut = z.object({ received: z.literal(true), outcome: z.enum(['applied', 'ignored', 'duplicate']) });
