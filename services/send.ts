import type { Knex } from 'knex';
import { type Config, senderCheckWaived } from '../lib/config';
import type { Logger } from '../lib/logger';
import { DomainError } from '../lib/domainErrors';
import { assertVerifiedSenderReadingLimits } from './senderCheck';
import { assertWithinLimits } from './billingLimits';
import { type UpsertContactInput, upsertContactWith } from '../db/contactWriters';
import { findTemplate, publishedContent } from '../db/templates';
import { findContactByEmail } from '../db/contactReaders';
import { sendableContent } from '../lib/templateContent';
import { insertAttachments, linkedEmail, EmailType, type NewEmail } from '../db/emails';
import { checkTemplate } from './render';
import type { RoutableEvent } from './events';
import type { Runtime } from './runtime';
import type { TemporalGateway } from './temporal';
import { uuid } from '../lib/ids';
import { normalizeEmail } from '../db/users';
import { topicChanges } from '../db/topics';
import { wakeCommitted } from './scheduledSends';

type Address = { email: string; name?: string };

/**
 * What a send asks for: the fields of POST /v1/send's body (api/schemas/send.ts `SendBody`, which
 * validates them) that this service reads. Declared here because services do not import the API;
 * the route hands its parsed body over, so the compiler checks the two agree.
 */
export interface SendRequest {
  to: string | Address | Array<string | Address>;
  from?: string | Address;
  /** The sender's name when `from` is a bare address. */
  name?: string;
  subject?: string;
  body?: string;
  text?: string;
  template?: string;
  reply?: string;
  subscribed?: boolean;
  data?: UpsertContactInput['data'];
  topics?: Record<string, boolean>;
  headers?: Record<string, string>;
  attachments?: NewEmail['attachments'];
  track?: NewEmail['track'];
  /** ISO 8601: store SCHEDULED until then (services/scheduledSends.ts); a past time sends now. */
  sendAt?: string;
}

/** One recipient's entry of the reply (`SendOut`'s `data.emails[]`, which the route's reply type checks). */
export interface SentEmail {
  contact: { id: string; email: string };
  email: string;
}

type SendDeps = { knex: Knex; temporal: TemporalGateway; log: Logger; config: Config; runtime: Pick<Runtime, 'deliveries' | 'events'> };
const asAddress = (a: string | Address): Address => (typeof a === 'string' ? { email: a } : a);

/** What the request asks to send, with the template's fields where the request leaves them out. */
async function resolveContent(deps: Pick<SendDeps, 'knex'>, projectId: string, body: SendRequest) {
  const template = body.template ? await findTemplate(deps.knex, projectId, body.template) : undefined;
  if (body.template && !template)
    throw new DomainError('invalid', 'Template not found in this project', { field: 'template', summary: 'Request validation failed' });
  const requestFrom = body.from ? asAddress(body.from) : undefined;
  const from: Address | undefined = requestFrom
    ? { email: requestFrom.email, name: requestFrom.name ?? (typeof body.from === 'string' ? body.name : undefined) }
    : template
      ? { email: template.from, name: template.from_name ?? undefined }
      : undefined;
  if (!from) throw new DomainError('invalid', 'from is required unless the template has one', { field: 'from', summary: 'Request validation failed' });
  // The published content, in the variant of a recipient's locale (lib/templateContent sendableContent).
  const published = template ? publishedContent(template) : null;
  const forLocale = (locale: unknown) => {
    const t = published ? sendableContent(published, locale) : null;
    const subject = body.subject ?? t!.subject;
    const html = body.body ?? t!.body;
    // A template's text describes the template's body: with a body of the request's own, the part
    // is generated from that body unless the request gives its text too.
    const text = body.text ?? (body.body === undefined ? (t?.text ?? null) : null);
    return { subject, html, text };
  };
  const byLocale = published?.variants ? Object.keys(published.variants) : [];
  for (const locale of [null, ...byLocale]) {
    const parts = forLocale(locale);
    for (const [field, source] of [
      ['subject', parts.subject],
      ['body', parts.html],
      ['text', parts.text],
    ] as const) {
      if (source === null) continue;
      const problem = checkTemplate(source);
      if (problem) throw new DomainError('invalid', `${field} is not a valid template: ${problem}`, { field, summary: 'Template could not be parsed' });
    }
  }
  return {
    template,
    from,
    ...forLocale(null),
    forLocale,
    /** Whether the content depends on the recipient's locale. */
    localized: byLocale.length > 0 && (body.subject === undefined || body.body === undefined),
    replyTo: body.reply ?? template?.reply_to ?? null,
    type: (template?.type ?? 'TRANSACTIONAL') as EmailType,
  };
}

/** The locale a recipient reads: `data.locale` of this request, else the one stored on the contact. */
async function recipientLocale(db: Knex, projectId: string, email: string, data: SendRequest['data']): Promise<unknown> {
  const given = (data as Record<string, unknown> | undefined)?.locale;
  const value = given && typeof given === 'object' && 'value' in given ? (given as { value: unknown }).value : given;
  if (typeof value === 'string' && value) return value;
  return (await findContactByEmail(db, projectId, email))?.data?.locale;
}

const compareAddresses = (a: string, b: string) => {
  const [x, y] = [normalizeEmail(a), normalizeEmail(b)];
  return x < y ? -1 : x > y ? 1 : 0;
};

/**
 * POST /v1/send: each recipient in turn gets its own contact upsert and its own email row; the
 * rows are delivered by the `deliverEmailBatch` workflow the batcher placed the request in
 * (services/deliveryBatcher.ts), named on each row. The call returns once the rows committed:
 * the batch starts a few milliseconds later, and the maintenance sweep starts any a crash left.
 */
export async function sendEmails(deps: SendDeps, projectId: string, body: SendRequest): Promise<SentEmail[]> {
  const content = await resolveContent(deps, projectId, body);
  const limits = await assertVerifiedSenderReadingLimits(deps.knex, projectId, content.from.email, senderCheckWaived(deps.config));
  const recipients = (Array.isArray(body.to) ? body.to : [body.to]).map(asAddress);
  await assertWithinLimits(deps.knex, projectId, { emails: recipients.length }, limits);
  const topics = await topicChanges(deps.knex, projectId, body.topics);
  // All recipients commit together, each with its own upsert and email row: a request that fails
  // leaves nothing behind, so a client retrying after a 5xx cannot double-send to earlier recipients.
  // Each contact and its email are one statement, so a single recipient without attachments needs
  // no transaction of its own.
  // Contacts are written in address order, not request order: two requests naming the same
  // recipients in opposite orders would otherwise lock their rows crosswise and deadlock. The
  // answer keeps the request's order.
  const byAddress = recipients.map((to, i) => ({ to, i })).sort((a, b) => compareAddresses(a.to.email, b.to.email));
  // A time still ahead stores the rows SCHEDULED outside any batch; their minute's workflow hands
  // them to a batch when due. A time already past is an ordinary send.
  const sendAt = body.sendAt && Date.parse(body.sendAt) > Date.now() ? new Date(body.sendAt) : undefined;
  const write = async (db: Knex) => {
    const rows: Array<{ emailId: string; contact: { id: string; email: string }; emitted: RoutableEvent[] }> = new Array(recipients.length);
    for (const { to, i } of byAddress) {
      const emailId = uuid();
      const parts = content.localized ? content.forLocale(await recipientLocale(db, projectId, to.email, body.data)) : content;
      const c = await upsertContactWith(
        db,
        { projectId, email: to.email, subscribed: body.subscribed, data: body.data, defaultSubscribed: false, source: 'send', topics },
        linkedEmail({
          id: emailId,
          projectId,
          templateId: content.template?.id ?? null,
          type: content.type,
          toName: to.name,
          from: content.from,
          replyTo: content.replyTo,
          subject: parts.subject,
          body: parts.html,
          text: parts.text,
          headers: body.headers,
          deliveryWorkflow: ticket?.workflowId ?? null,
          track: body.track,
          sendAt,
        }),
      );
      await insertAttachments(db, emailId, body.attachments);
      rows[i] = { emailId, contact: { id: c.contact.id, email: c.contact.email }, emitted: c.events };
    }
    return rows;
  };
  // The place is taken before the rows are written, so they can name their batch; the batch waits
  // for this request to commit or fail before it starts.
  const ticket = sendAt ? undefined : deps.runtime.deliveries.reserve(projectId, recipients.length);
  let written: Awaited<ReturnType<typeof write>> = [];
  try {
    written = recipients.length === 1 && !body.attachments?.length ? await write(deps.knex) : await deps.knex.transaction(write);
  } finally {
    ticket?.settle(written.map((w) => w.emailId));
  }
  if (sendAt) await wakeCommitted(deps, projectId, [sendAt]);
  await Promise.all(written.map((w) => deps.runtime.events.handOff(w.emitted)));
  return written.map((w) => ({ contact: w.contact, email: w.emailId }));
}
