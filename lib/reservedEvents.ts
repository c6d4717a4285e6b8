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
 * Compared after NFKC: `ｃampaign.sent` (full-width c) or `campaign．sent` (full-width stop) reads
 * as `campaign.sent` to a person and to any receiver that normalises, so it is the same name here.
 *
 * Emitters: `email.*` (activities/email.ts, services/providerEvents.ts, db/emailStates.ts),
 * `contact.subscribed|unsubscribed` (lib/contactData.ts), `contact.topic.subscribed|unsubscribed` (db/topics.ts), `segment.<slug>.entry|exit` (db/segments.ts),
 * `campaign.sent|cancelled` (services/webhooks/campaigns.ts), `webhook.disabled|test`
 * (services/webhooks/delivery.ts, api/routes/webhookEndpoints.ts). Every emitted name is ASCII
 * (slugs are a-z0-9 and "-", db/slugs.ts), which the lookalike rule below relies on.
 *
 * Pure and free of Node modules: the workflow sandbox loads it through temporal/steps/types.ts.
 */
export const RESERVED_EVENT_FAMILIES = ['email', 'contact', 'segment', 'campaign', 'webhook'] as const;

const FAMILIES: ReadonlySet<string> = new Set(RESERVED_EVENT_FAMILIES);

/**
 * Characters a person cannot see: format characters (category Cf: zero-width space, joiners, bidi
 * controls, BOM, soft hyphen, tag characters), controls, line and paragraph separators, and the
 * invisible letters and marks that are not Cf (combining grapheme joiner, Hangul fillers, Khmer
 * inherent vowels, Mongolian variation selectors, variation selectors, braille blank).
 */
// biome-ignore lint/suspicious/noMisleadingCharacterClass: the class lists invisible code points to find each on its own; none is meant to combine with another
const INVISIBLE = /[\p{Cf}\p{Cc}\p{Zl}\p{Zp}\u034F\u115F\u1160\u17B4\u17B5\u180B-\u180F\u2800\u3164\uFE00-\uFE0F\uFFA0\u{E0100}-\u{E01EF}]/u;
const NON_ASCII = /[^\x00-\x7F]/;

const folded = (name: string) => name.normalize('NFKC').toLowerCase();

/** Whether `name` is in a family the service emits (`<family>.<anything>`), whatever its case or compatibility form. */
export function isReservedEventName(name: string): boolean {
  const n = folded(name);
  const dot = n.indexOf('.');
  return dot > 0 && FAMILIES.has(n.slice(0, dot).trim());
}

/**
 * Whether the service could have emitted `name` itself: reserved and plain ASCII, as every emitted
 * name is. A lookalike (`ｃampaign.sent`) tracked before the NFKC rule is reserved for tracking but
 * was never the platform's, so its owner may still delete it by name.
 */
export const isEmittableEventName = (name: string) => !NON_ASCII.test(name) && isReservedEventName(name);

/** Whether `name` holds a character that does not show (see INVISIBLE). */
export const hasInvisibleCharacter = (name: string) => INVISIBLE.test(name);

export type EventNameProblem = { code: 'reserved_event' | 'custom'; message: string };

/**
 * The one rule for an event name entering the service, or null when it may enter.
 *
 * - `track` (POST /v1/track, /events/track): names a caller records. Reserved families are refused
 *   (`reserved_event`), whatever their case or compatibility form.
 * - `listen` (workflow triggers, WAIT_FOR_EVENT): names a workflow waits for. Emitted names are
 *   allowed as they are written, but a non-ASCII spelling of one is refused: no emitted name has
 *   one, so it would never fire, and it shows as the real name on the canvas.
 *
 * Both refuse invisible characters: `campaign\u200b.sent` is a different string from
 * `campaign.sent` that looks the same in every list, log and webhook receiver.
 */
export function eventNameProblem(name: string, use: 'track' | 'listen'): EventNameProblem | null {
  if (hasInvisibleCharacter(name)) {
    return {
      code: isReservedEventName(name.replace(new RegExp(INVISIBLE.source, 'gu'), '')) ? 'reserved_event' : 'custom',
      message: 'event name contains an invisible or formatting character',
    };
  }
  if (!isReservedEventName(name)) return null;
  if (use === 'track') return { code: 'reserved_event', message: `"${name}" is a reserved event name` };
  if (NON_ASCII.test(name)) {
    return { code: 'reserved_event', message: `"${name}" is a non-ASCII spelling of a reserved event name; the service emits only ASCII names` };
  }
  return null;
}
