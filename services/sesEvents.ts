import { z } from 'zod';
import { occurredAt, type ProviderEvent } from './providerEvents';
import { hasRefusedCharacter } from '../lib/hostileText';

/**
 * Amazon SES notifications (the Message of an SNS Notification) in the common provider-event
 * shape. Two formats arrive: event publishing through a configuration set (`eventType`, with our
 * message tags in `mail.tags`) and identity notifications (`notificationType`: Bounce, Complaint,
 * Delivery; no tags). Either way `mail.messageId` is the id SendEmail returned, stored on the email.
 */

/** SES's kinds onto the SendGrid names services/providerEvents applies; DeliveryDelay, like SendGrid's "deferred", changes nothing. */
const KINDS: Record<string, string> = {
  Send: 'processed',
  Reject: 'dropped',
  Delivery: 'delivered',
  Open: 'open',
  Click: 'click',
  Bounce: 'bounce',
  Complaint: 'spamreport',
  DeliveryDelay: 'deferred',
};

/** A string we may store (Postgres refuses NUL, JSON lone surrogates); anything else counts as absent. */
const storable = (max: number) =>
  z
    .string()
    .max(max)
    .refine((s) => !hasRefusedCharacter(s))
    .optional()
    .catch(undefined);
const time = z.string().max(100).optional().catch(undefined);
const address = z
  .string()
  .min(3)
  .max(320)
  .refine((s) => !hasRefusedCharacter(s));

const SesNotification = z.object({
  eventType: z.string().max(100).optional(),
  notificationType: z.string().max(100).optional(),
  mail: z.object({
    messageId: z
      .string()
      .min(1)
      .max(200)
      .refine((s) => !hasRefusedCharacter(s)),
    timestamp: time,
    destination: z.array(address).max(1000).catch([]),
    tags: z
      .record(z.string(), z.array(z.string().max(256)))
      .optional()
      .catch(undefined),
  }),
  bounce: z
    .object({
      bounceType: storable(100),
      bounceSubType: storable(100),
      bouncedRecipients: z
        .array(z.object({ emailAddress: address, diagnosticCode: storable(1000) }))
        .max(1000)
        .catch([]),
      timestamp: time,
    })
    .optional(),
  complaint: z
    .object({
      complainedRecipients: z
        .array(z.object({ emailAddress: address }))
        .max(1000)
        .catch([]),
      timestamp: time,
    })
    .optional(),
  delivery: z.object({ recipients: z.array(address).max(1000).catch([]), timestamp: time }).optional(),
  deliveryDelay: z
    .object({
      delayedRecipients: z
        .array(z.object({ emailAddress: address }))
        .max(1000)
        .catch([]),
      timestamp: time,
    })
    .optional(),
  open: z.object({ timestamp: time }).optional(),
  click: z.object({ link: storable(4000), timestamp: time }).optional(),
  reject: z.object({ reason: storable(1000) }).optional(),
});
type SesNotification = z.infer<typeof SesNotification>;

const tag = (n: SesNotification, name: string): string | undefined => n.mail.tags?.[name]?.[0];

/** The recipients this notification is about: those SES lists for the kind, else the message's. */
function recipientsOf(n: SesNotification): Array<{ address: string; reason?: string }> {
  const listed =
    n.bounce?.bouncedRecipients.map((r) => ({ address: r.emailAddress, reason: r.diagnosticCode })) ??
    n.complaint?.complainedRecipients.map((r) => ({ address: r.emailAddress })) ??
    n.delivery?.recipients.map((a) => ({ address: a })) ??
    n.deliveryDelay?.delayedRecipients.map((r) => ({ address: r.emailAddress }));
  return listed?.length ? listed : n.mail.destination.map((a) => ({ address: a }));
}

/**
 * The provider events of one SNS notification whose id is `snsMessageId`: one per recipient it
 * names (one, for what this service sends: every SES message has a single recipient). A Message
 * that is not an SES notification still yields one event, with no kind, so it is counted as ignored.
 */
export function sesProviderEvents(snsMessageId: string, message: string): ProviderEvent[] {
  const id = `ses:${snsMessageId}`;
  let json: unknown;
  try {
    json = JSON.parse(message);
  } catch {
    return [{ provider: 'ses', id, at: new Date() }];
  }
  const parsed = SesNotification.safeParse(json);
  if (!parsed.success) return [{ provider: 'ses', id, at: new Date() }];
  const n = parsed.data;
  const sesKind = n.eventType ?? n.notificationType;
  const kind = sesKind && Object.hasOwn(KINDS, sesKind) ? KINDS[sesKind] : undefined;
  const detail = n.bounce ?? n.complaint ?? n.delivery ?? n.deliveryDelay ?? n.open ?? n.click;
  const when = detail?.timestamp ?? n.mail.timestamp;
  const recipients = recipientsOf(n);
  const base = {
    provider: 'ses' as const,
    kind,
    emailId: tag(n, 'email_id'),
    projectId: tag(n, 'project_id'),
    messageId: n.mail.messageId,
    // The tags name an email, but only SES's message id for it proves the notification is about that email.
    requireMessageId: true,
    at: occurredAt(when ? new Date(when) : null),
    // Only a Permanent bounce is final; Transient and Undetermined ones leave the address subscribed.
    softBounce: sesKind === 'Bounce' && n.bounce?.bounceType !== 'Permanent',
    url: n.click?.link,
  };
  const bounceKind = [n.bounce?.bounceType, n.bounce?.bounceSubType].filter(Boolean).join('/');
  if (recipients.length === 0) return [{ ...base, id, reason: n.reject?.reason }];
  return recipients.map((r, i) => ({
    ...base,
    id: recipients.length === 1 ? id : `${id}:${i}`,
    address: r.address,
    reason: r.reason ?? n.reject?.reason ?? (bounceKind || undefined),
  }));
}
