/**
 * SendGrid's batch shapes, apart from its SDK: the log transport groups like SendGrid and campaigns
 * size their pages by its cap, and neither should load the SDK (services/transports.ts loads only the
 * transport in use).
 */

import type { Address, BatchRecipient, OutgoingBatch } from './transport';
import { chunk } from '../lib/arrays';

/** SendGrid's cap on personalizations (recipients) per /v3/mail/send call. */
export const MAX_BATCH_RECIPIENTS = 1000;

/**
 * Per-recipient bodies travel as substitutions of these tags, the message's whole content (the
 * text/plain part and the HTML). SendGrid caps a personalization's substitutions at 10,000 bytes
 * in all; the margin covers the keys and JSON quoting.
 */
const BODY_TAG = '%svc_body%';
const TEXT_TAG = '%svc_text%';
const MAX_SUBSTITUTED_BODY_BYTES = 9_500;

const sameContent = (a: BatchRecipient, b: BatchRecipient) => a.html === b.html && a.text === b.text;
const contentBytes = (r: BatchRecipient) => Buffer.byteLength(r.html) + Buffer.byteLength(r.text);

/**
 * Groups for SendGrid: recipients sharing one rendered content (HTML and text) go together with
 * it as the content (any size); differing contents that fit the substitutions go together as
 * substitutions; a larger unique content goes alone. Every group holds at most MAX_BATCH_RECIPIENTS.
 */
export function splitForSendgrid(recipients: BatchRecipient[]): BatchRecipient[][] {
  // Keyed by the HTML, then the text: no key string is built per recipient (a body is kilobytes).
  const byContent = new Map<string, Map<string, BatchRecipient[]>>();
  for (const r of recipients) {
    let byText = byContent.get(r.html);
    if (!byText) byContent.set(r.html, (byText = new Map()));
    const same = byText.get(r.text);
    if (same) same.push(r);
    else byText.set(r.text, [r]);
  }
  const groups: BatchRecipient[][] = [];
  const substituted: BatchRecipient[] = [];
  for (const list of [...byContent.values()].flatMap((byText) => [...byText.values()])) {
    if (list.length === 1 && contentBytes(list[0]) <= MAX_SUBSTITUTED_BODY_BYTES) substituted.push(list[0]);
    else groups.push(...chunk(list, MAX_BATCH_RECIPIENTS));
  }
  return [...chunk(substituted, MAX_BATCH_RECIPIENTS), ...groups];
}

/**
 * The /v3/mail/send body of a batch: one personalization per recipient with its own subject,
 * headers and `email_id` custom arg (how provider events find the email row); the content
 * (text/plain first, then text/html, the order SendGrid requires) is shared when every recipient
 * has the same one, else per-recipient substitutions.
 */
export function sendgridBatchPayload(batch: OutgoingBatch) {
  const first = batch.recipients[0];
  const shared = batch.recipients.every((r) => sameContent(r, first));
  return {
    from: addr(batch.from),
    ...(batch.replyTo ? { reply_to: { email: batch.replyTo } } : {}),
    personalizations: batch.recipients.map((r) => ({
      // Exactly the one recipient: no cc or bcc, whatever the headers carry.
      to: [addr(r.to)],
      subject: r.subject,
      ...(Object.keys(r.headers).length ? { headers: r.headers } : {}),
      ...(shared ? {} : { substitutions: { [TEXT_TAG]: r.text, [BODY_TAG]: r.html } }),
      custom_args: { email_id: r.emailId },
    })),
    content: [
      { type: 'text/plain', value: shared ? first.text : TEXT_TAG },
      { type: 'text/html', value: shared ? first.html : BODY_TAG },
    ],
    custom_args: { project_id: batch.projectId, campaign_id: batch.campaignId },
  };
}

export const addr = (a: Address) => (a.name ? { email: a.email, name: a.name } : { email: a.email });
