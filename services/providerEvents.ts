import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import type { TemporalGateway } from './temporal';
import type { Transport } from './transport';
import type { EmailStatus } from '../db/emails';
import { claimProviderEvent, emailForProviderEvent, pruneProviderEventIds, setEmailMilestone } from '../db/providerEvents';
import { advanceEmailStatus } from '../db/emailStates';
import { recordEvent, EventRow } from '../db/events';
import { updateContact } from '../db/contactWriters';
import { suppressFromEvent } from '../db/suppressions';
import { bumpCampaignCounter, ProviderMilestone } from '../db/campaignCounters';
import type { Runtime } from './runtime';
import { checkSuspension } from '../db/security';
import { deterministicUuid } from '../lib/ids';
import { providerEvents as providerEventsApplied } from '../lib/metrics';
import { parsePublicKey } from '../lib/publicKey';

/**
 * Provider events (SendGrid's Event Webhook, POST /webhooks/sendgrid; SES through SNS, POST
 * /webhooks/ses, mapped by services/sesEvents): each event is applied once (its id, SendGrid's
 * `sg_event_id` or the SNS message id, is remembered in `provider_events`, in the transaction that applies it), moves its
 * email's status forward, moves the campaign counter the first time the email reaches that
 * milestone, records an `email.*` event on the contact and, for hard bounces, spam reports and
 * unsubscribes, unsubscribes the contact; hard bounces and spam reports also suppress the address.
 */

/** One event as SendGrid posts it; our custom args (`email_id`, `project_id`, `campaign_id`) sit at the top level. */
export type SendgridEvent = Record<string, unknown>;

/**
 * One event in the shape every provider's adapter produces (SendGrid's below, SES's in
 * services/sesEvents), so all providers move the same statuses, counters, events and suppressions.
 */
export interface ProviderEvent {
  provider: 'sendgrid' | 'ses' | 'smtp';
  /** Unique per event across providers; remembered so a re-post is applied once. */
  id: string;
  /** A key of EFFECTS (SendGrid's event names, onto which other providers' kinds are mapped); anything else is ignored. */
  kind?: string;
  /** Our email id when the provider echoes it back (SendGrid custom args, SES message tags). */
  emailId?: string;
  /** The provider's message id and the recipient's address, for events without our email id. */
  messageId?: string;
  address?: string;
  /**
   * The email must carry `messageId` as its stored provider message id, even when `emailId` names it.
   * For senders proven only to hold *some* key the provider signs with (SNS signs every AWS
   * account's topics): our email ids are not secret (they travel in headers), the pair is.
   */
  requireMessageId?: boolean;
  /** The project the event names; an event naming another project than its email's is not applied. */
  projectId?: string;
  at: Date;
  /** A temporary bounce: the address stays subscribed. */
  softBounce?: boolean;
  url?: string;
  reason?: string;
}

export const SIGNATURE_HEADER = 'x-twilio-email-event-webhook-signature';
export const TIMESTAMP_HEADER = 'x-twilio-email-event-webhook-timestamp';

/**
 * SendGrid signs `timestamp + raw body` with ECDSA P-256 / SHA-256. The key is the base64 DER
 * (SPKI) string SendGrid shows, or a PEM. Anything malformed is simply "not verified".
 */
export function verifySendgridSignature(publicKey: string, rawBody: string | Buffer, signature: string, timestamp: string): boolean {
  try {
    return crypto.verify('sha256', Buffer.concat([Buffer.from(timestamp), Buffer.from(rawBody)]), parsePublicKey(publicKey), Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}

/**
 * How far the signed timestamp may be from our clock, either way. SendGrid stamps a post when it
 * sends it, so a genuine one is seconds old; an older one that still verifies is a captured request
 * played again, which remembered event ids stop only until they are pruned (7 days). The margin
 * covers clock skew and a slow hop.
 */
export const SENDGRID_SIGNATURE_MAX_AGE_SECONDS = 10 * 60;

/** Why a (verified) signature timestamp is refused, or null when it is recent enough. */
export function sendgridTimestampProblem(timestamp: string, now = Date.now()): string | null {
  if (!/^\d{1,12}$/.test(timestamp.trim())) return 'Invalid event webhook timestamp: expected unix seconds';
  const skew = Math.abs(now / 1000 - Number(timestamp));
  return skew > SENDGRID_SIGNATURE_MAX_AGE_SECONDS
    ? `The event webhook signature timestamp is more than ${SENDGRID_SIGNATURE_MAX_AGE_SECONDS / 60} minutes from now: a replayed request, or a clock out of sync`
    : null;
}

interface Effect {
  /** The status the email moves to, from any status ranked below it. */
  status?: EmailStatus;
  /** The once-per-email timestamp column (and so the campaign counter) this event sets. */
  milestone?: ProviderMilestone;
  /** The contact event recorded. */
  event?: string;
  /** Unsubscribes the contact; recorded as the subscription event's `source`. */
  unsubscribe?: 'bounce' | 'complaint' | 'provider';
  /** Puts the address on the project's suppression list (db/suppressions); a soft bounce does not. */
  suppress?: 'HARD_BOUNCE' | 'COMPLAINT';
}

const EFFECTS: Record<string, Effect> = {
  processed: {},
  dropped: { status: 'FAILED' },
  delivered: { status: 'DELIVERED', milestone: 'delivered_at', event: 'email.delivered' },
  open: { status: 'OPENED', milestone: 'opened_at', event: 'email.opened' },
  click: { status: 'CLICKED', milestone: 'clicked_at', event: 'email.clicked' },
  bounce: { status: 'BOUNCED', milestone: 'bounced_at', event: 'email.bounced', unsubscribe: 'bounce', suppress: 'HARD_BOUNCE' },
  spamreport: { status: 'COMPLAINED', milestone: 'complained_at', event: 'email.complained', unsubscribe: 'complaint', suppress: 'COMPLAINT' },
  unsubscribe: { unsubscribe: 'provider' },
  group_unsubscribe: { unsubscribe: 'provider' },
};

/**
 * Statuses only move forward, so late or reordered events never undo a later one. FAILED shares
 * SENT's rank: a provider event for an email we failed (outcome unknown) shows it did go out.
 */
// SUPPRESSED emails never reached a provider: no event of theirs moves them; nor do SCHEDULED or
// CANCELLED ones, which no provider has seen yet (or ever will).
const RANK: Record<EmailStatus, number> = {
  SCHEDULED: 99,
  CANCELLED: 99,
  QUEUED: 0,
  SENDING: 1,
  SENT: 2,
  FAILED: 2,
  DELIVERED: 3,
  OPENED: 4,
  CLICKED: 5,
  BOUNCED: 6,
  COMPLAINED: 7,
  SUPPRESSED: 99,
};
export const movesFrom = (to: EmailStatus): EmailStatus[] =>
  (Object.keys(RANK) as EmailStatus[]).filter((s) => RANK[s] < RANK[to] || (to === 'FAILED' && s === 'SENT'));

const text = (v: unknown, max = 1000): string | undefined => (typeof v === 'string' && v.length > 0 && v.length <= max ? v : undefined);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** SendGrid's id, or (for payloads without one) a digest of the event, so a re-post still dedupes. */
function providerEventId(e: SendgridEvent): string {
  return text(e.sg_event_id, 200) ?? `sha256:${crypto.createHash('sha256').update(JSON.stringify(e)).digest('hex')}`;
}

/** When the event happened, or now when the provider says nothing usable (or a time in the future). */
export function occurredAt(t: Date | null): Date {
  return t && !Number.isNaN(t.getTime()) && t.getTime() <= Date.now() + 60_000 ? t : new Date();
}

/** SendGrid's event in the common shape. */
function fromSendgrid(e: SendgridEvent): ProviderEvent {
  const kind = text(e.event, 100);
  return {
    provider: 'sendgrid',
    id: providerEventId(e),
    kind,
    emailId: text(e.email_id),
    messageId: text(e.sg_message_id)?.split('.')[0],
    address: text(e.email, 320),
    projectId: text(e.project_id),
    // SendGrid's timestamps are unix seconds.
    at: occurredAt(typeof e.timestamp === 'number' ? new Date(e.timestamp * 1000) : null),
    // A "blocked" bounce is temporary (SendGrid's soft bounce).
    softBounce: kind === 'bounce' && e.type === 'blocked',
    url: text(e.url, 4000),
    reason: text(e.reason),
  };
}

export type Outcome = 'applied' | 'duplicate' | 'unmatched' | 'ignored';

export interface ProviderEventsResult {
  received: number;
  applied: number;
  duplicates: number;
  unmatched: number;
  ignored: number;
}

const CONCURRENCY = 4;

/** SendGrid retries an undelivered webhook post for up to 72 hours; ids are kept well past that. */
const PROVIDER_EVENT_RETENTION_DAYS = 7;

/**
 * One event inside the caller's transaction (its own, or the inbound server's, which stores the
 * report in the same commit). Locks are taken in one order everywhere (email row, contact row,
 * campaign row), so concurrent events of the same contact or campaign wait rather than deadlock.
 * The events it records land in `toRoute`; hand them over once the transaction committed (afterProviderEvents).
 */
export async function applyProviderEventIn(trx: Knex, e: ProviderEvent, toRoute: EventRow[]): Promise<Outcome> {
  const id = e.id;
  if (!(await claimProviderEvent(trx, id))) return 'duplicate';
  const kind = e.kind;
  const effect = kind && Object.hasOwn(EFFECTS, kind) ? EFFECTS[kind] : undefined;
  if (!effect) return 'ignored';
  const email = await emailForProviderEvent(trx, {
    emailId: e.emailId && UUID.test(e.emailId) ? e.emailId : undefined,
    messageId: e.messageId,
    address: e.address?.toLowerCase(),
    requireMessageId: e.requireMessageId,
  });
  if (!email || (e.projectId && e.projectId !== email.project_id)) return 'unmatched';
  // Our own pixel and redirects count this email's opens or clicks (docs/tracking.md): the provider's would count them twice.
  if ((kind === 'open' && email.track_opens) || (kind === 'click' && email.track_clicks)) return 'ignored';

  const at = e.at;
  if (effect.status) {
    const reason = effect.status === 'FAILED' ? { error: `dropped by the provider: ${e.reason ?? 'no reason given'}` } : {};
    await advanceEmailStatus(trx, email.id, effect.status, movesFrom(effect.status), reason.error);
  }
  let firstTime = false;
  if (effect.milestone) {
    firstTime = await setEmailMilestone(trx, email.id, effect.milestone, at);
  }
  if (effect.unsubscribe && email.contact_id && !e.softBounce) {
    const r = await updateContact(trx, { projectId: email.project_id, contactId: email.contact_id, subscribed: false, source: effect.unsubscribe });
    if (r) toRoute.push(...r.events);
  }
  // In the same transaction as the unsubscribe: the address is never offered to a provider again,
  // whether or not it is a contact (a /v1/send recipient, a test send).
  if (effect.suppress && email.project_id && !e.softBounce) {
    await suppressFromEvent(trx, { projectId: email.project_id, email: email.to_email, reason: effect.suppress, emailId: email.id });
  }
  if (effect.event && email.contact_id) {
    const data: Record<string, unknown> = { emailId: email.id, provider: e.provider };
    if (email.campaign_id) data.campaignId = email.campaign_id;
    if (kind === 'click' && e.url) data.url = e.url;
    if (kind === 'bounce' || kind === 'dropped') data.reason = e.reason ?? null;
    if (kind === 'bounce' && e.softBounce) data.soft = true;
    toRoute.push(
      await recordEvent(trx, {
        id: deterministicUuid('provider-event', id),
        projectId: email.project_id,
        contactId: email.contact_id,
        name: effect.event,
        data,
      }),
    );
  }
  if (firstTime && email.campaign_id) await bumpCampaignCounter(trx, email.campaign_id, effect.milestone!);
  return 'applied';
}

/**
 * After the commit: routes the recorded events (committed events left unrouted are started by the
 * maintenance sweep, so a provider need not retry) and, since bounces and complaints move a
 * project's rates, suspends one over its threshold now.
 */
export async function afterProviderEvents(deps: ProviderEventDeps, toRoute: EventRow[]): Promise<void> {
  await deps.runtime.events.handOff(toRoute);
  const hurt = new Set(toRoute.filter((e) => e.name === 'email.bounced' || e.name === 'email.complained').map((e) => e.project_id));
  for (const projectId of hurt) await checkSuspension(deps.knex, projectId, deps.config.security);
}

export type ProviderEventDeps = { knex: Knex; temporal: TemporalGateway; log: Logger; config: Config; runtime: Pick<Runtime, 'events'> };

export function providerEvents(deps: ProviderEventDeps) {
  const { knex } = deps;

  const applyOne = (e: ProviderEvent, toRoute: EventRow[]): Promise<Outcome> => knex.transaction((trx) => applyProviderEventIn(trx, e, toRoute));

  const api = {
    /** For the maintenance sweep: forgets event ids too old to be retried by the provider. */
    async pruneProviderEvents(): Promise<number> {
      return pruneProviderEventIds(knex, PROVIDER_EVENT_RETENTION_DAYS);
    },

    /** Applies a posted SendGrid batch; safe to call again with the same batch. */
    applySendgridEvents(events: SendgridEvent[]): Promise<ProviderEventsResult> {
      return api.applyProviderEvents(events.map(fromSendgrid));
    },

    /** Applies events of any provider; they are independent, so a few go at once. Safe to call again with the same events. */
    async applyProviderEvents(events: ProviderEvent[]): Promise<ProviderEventsResult> {
      const result: ProviderEventsResult = { received: events.length, applied: 0, duplicates: 0, unmatched: 0, ignored: 0 };
      const toRoute: EventRow[] = [];
      let next = 0;
      const worker = async () => {
        while (next < events.length) {
          const event = events[next++];
          const outcome = await applyOne(event, toRoute);
          providerEventsApplied.inc({ provider: event.provider, kind: event.kind && Object.hasOwn(EFFECTS, event.kind) ? event.kind : 'other', outcome });
          if (outcome === 'applied') result.applied++;
          else if (outcome === 'duplicate') result.duplicates++;
          else if (outcome === 'unmatched') result.unmatched++;
          else result.ignored++;
        }
      };
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, events.length) }, worker));
      await afterProviderEvents(deps, toRoute);
      return result;
    },
  };
  return api;
}

/**
 * Refusals heard while handing mail over (an SMTP 5xx at RCPT or DATA, `bounce` set) are bounces
 * known at once: they go through the same path as a provider's bounce report (status, campaign
 * counter, `email.bounced`, the contact unsubscribed, the suspension check). The id is derived from
 * the email, so recording a refusal twice applies it once. The `log` transport refuses nothing.
 */
export function refusalBounces(deps: Parameters<typeof providerEvents>[0], transport: Pick<Transport, 'name'>) {
  const events = providerEvents(deps);
  const provider = transport.name === 'log' ? null : transport.name;
  return {
    async record(refusals: Array<{ emailId: string; error: { message: string; bounce: boolean } }>): Promise<void> {
      const bounced = provider ? refusals.filter((r) => r.error.bounce) : [];
      if (!provider || bounced.length === 0) return;
      await events.applyProviderEvents(
        bounced.map((r) => ({ provider, id: `${provider}-refused:${r.emailId}`, kind: 'bounce', emailId: r.emailId, at: new Date(), reason: r.error.message })),
      );
    },
  };
}
