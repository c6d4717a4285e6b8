/**
 * Event families the service emits itself (spec "Events"; docs/webhooks.md "Reserved names"). A
 * caller must not track a name in them: outbound webhooks deliver every event signed with the
 * project's endpoint secret, so a `campaign.sent` or `email.bounced` tracked with the public key
 * (which sits in web pages) would reach the receiver as if the platform had sent it.
 *
 * Whole families, not only the names emitted today: an endpoint subscribed to `contact.*` trusts
 * everything the pattern matches, and a name added to a family later is reserved already.
 * Case-insensitive, so `Email.Bounced` cannot pass for one either.
 *
 * Emitters: `email.*` (activities/email.ts, services/providerEvents.ts, db/emailStates.ts),
 * `contact.subscribed|unsubscribed` (db/contacts.ts), `contact.topic.subscribed|unsubscribed` (db/topics.ts), `segment.<slug>.entry|exit` (db/segments.ts),
 * `campaign.sent|cancelled` (services/webhooks/campaigns.ts), `webhook.disabled|test`
 * (services/webhooks/delivery.ts, api/routes/webhookEndpoints.ts).
 */
export const RESERVED_EVENT_FAMILIES = ['email', 'contact', 'segment', 'campaign', 'webhook'] as const;

const FAMILIES: ReadonlySet<string> = new Set(RESERVED_EVENT_FAMILIES);

/** Whether `name` is in a family the service emits (`<family>.<anything>`), whatever its case. */
export function isReservedEventName(name: string): boolean {
  const dot = name.indexOf('.');
  return dot > 0 && FAMILIES.has(name.slice(0, dot).trim().toLowerCase());
}
