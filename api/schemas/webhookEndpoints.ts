import { z } from 'zod';
import { Timestamp, Uuid } from './common';
import { limit } from './analytics';

/** An exact event name (`email.delivered`, `purchase`), a family (`email.*`), or `*`. */
const EventPattern = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[^\u0000-\u001f\u007f]+$/, 'must not contain control characters')
  .refine((p) => !p.includes('*') || p === '*' || /^[^*]+\.\*$/.test(p), 'a pattern is an exact event name, a family like "email.*", or "*"')
  .describe('exact event name, a family (`email.*`, `contact.*`, `segment.*`, `campaign.*`, `webhook.*`) or `*`');

const WebhookUrl = z
  .string()
  .trim()
  .max(2000)
  .url()
  .refine((u) => /^https?:\/\//i.test(u), 'must be an http or https URL')
  .describe('receives a signed POST per message');

const Description = z.string().max(500).nullable();

export const WebhookEndpointCreate = z.object({
  url: WebhookUrl,
  events: z.array(EventPattern).min(1).max(50),
  description: Description.optional(),
});

export const WebhookEndpointUpdate = z.object({
  url: WebhookUrl.optional(),
  events: z.array(EventPattern).min(1).max(50).optional(),
  description: Description.optional(),
  enabled: z.boolean().optional().describe('true re-enables a disabled endpoint and forgets its failure streak'),
});

export const DeliveryParams = z.object({ id: Uuid, deliveryId: Uuid });

export const DELIVERY_STATUSES = ['PENDING', 'DELIVERED', 'FAILED'] as const;

export const DeliveryListQuery = z.object({
  limit: limit(20, 100),
  cursor: z.string().min(1).max(1000).optional().describe('the `cursor` of the previous page'),
  status: z.enum(DELIVERY_STATUSES).optional(),
});

export const WebhookEndpointOut = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  description: z.string().nullable(),
  enabled: z.boolean(),
  disabledAt: Timestamp.nullable(),
  failingSince: Timestamp.nullable().describe('first failed attempt since the last success; 5 days of failures disable the endpoint'),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

/** Creation and rotation: the only answers that show the secret. */
export const WebhookEndpointWithSecretOut = WebhookEndpointOut.extend({
  secret: z.string().describe('`whsec_…`: verify calls with any Standard Webhooks library'),
  previousSecretExpiresAt: Timestamp.nullable().describe('until then the previous secret also signs every call'),
});

export const WebhookDeliveryOut = z.object({
  id: z.string(),
  messageId: z.string().describe('the `webhook-id` header: the same on every attempt'),
  type: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number().int(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  nextAttemptAt: Timestamp.nullable(),
  createdAt: Timestamp,
});

export const WebhookDeliveryPage = z.object({
  data: z.array(WebhookDeliveryOut),
  cursor: z.string().nullable().describe('pass as `cursor` for the next page; null on the last page'),
  hasMore: z.boolean(),
});
