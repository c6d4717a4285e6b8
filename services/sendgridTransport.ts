import { MailService } from '@sendgrid/mail';
import { Client } from '@sendgrid/client';
import type { Config } from '../lib/config';
import { chunk } from '../lib/arrays';
import { allAccepted, Address, BatchRecipient, OutgoingBatch, Transport, TransportRejected } from './transport';

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

/** Recipients with the same key have the same content, both parts. */
const contentKey = (r: BatchRecipient) => `${r.text}\u0000${r.html}`;
const contentBytes = (r: BatchRecipient) => Buffer.byteLength(r.html) + Buffer.byteLength(r.text);

/**
 * Groups for SendGrid: recipients sharing one rendered content (HTML and text) go together with
 * it as the content (any size); differing contents that fit the substitutions go together as
 * substitutions; a larger unique content goes alone. Every group holds at most MAX_BATCH_RECIPIENTS.
 */
export function splitForSendgrid(recipients: BatchRecipient[]): BatchRecipient[][] {
  const byContent = new Map<string, BatchRecipient[]>();
  for (const r of recipients) {
    const key = contentKey(r);
    const same = byContent.get(key);
    if (same) same.push(r);
    else byContent.set(key, [r]);
  }
  const groups: BatchRecipient[][] = [];
  const substituted: BatchRecipient[] = [];
  for (const list of byContent.values()) {
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
  const shared = batch.recipients.every((r) => contentKey(r) === contentKey(first));
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

const addr = (a: Address) => (a.name ? { email: a.email, name: a.name } : { email: a.email });

/** A refusal with a known outcome becomes TransportRejected; no answer at all is rethrown as is. */
function sendgridFailure(err: any): Error {
  const status: number | undefined = err?.code ?? err?.response?.statusCode;
  if (typeof status === 'number' && status >= 400) {
    return new TransportRejected(`SendGrid answered ${status}: ${JSON.stringify(err?.response?.body ?? err.message)}`, status, status === 429 || status >= 500);
  }
  if (['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'].includes(err?.code)) {
    return new TransportRejected(`SendGrid unreachable: ${err.code}`, 0, true);
  }
  // No answer: the provider may or may not have accepted it.
  return err;
}

const headerValue = (v: unknown) => String((Array.isArray(v) ? v[0] : v) ?? '');

export function sendgridTransport(config: Config): Transport {
  const client = new Client();
  client.setApiKey(config.email.sendgridApiKey!);
  // setApiKey resets the base URL to the region's, so the override comes after it.
  if (config.email.sendgridApiUrl) client.setDefaultRequest('baseUrl', config.email.sendgridApiUrl.replace(/\/?$/, '/'));
  client.setDefaultRequest('timeout' as any, 30_000);
  const mail = new MailService();
  mail.setClient(client);
  return {
    name: 'sendgrid',
    reofferInterrupted: false,
    maxBatch: MAX_BATCH_RECIPIENTS,
    async send(m) {
      try {
        const [response] = await mail.send({
          to: addr(m.to),
          from: addr(m.from),
          ...(m.replyTo ? { replyTo: m.replyTo } : {}),
          subject: m.subject,
          // The helper orders content text/plain first, then text/html, as SendGrid requires.
          text: m.text,
          html: m.html,
          headers: m.headers,
          // System emails have no project, and SendGrid accepts only string custom args.
          customArgs: { email_id: m.emailId, ...(m.projectId ? { project_id: m.projectId } : {}) },
          attachments: m.attachments.map((a) => ({
            filename: a.filename,
            content: a.content,
            ...(a.contentType ? { type: a.contentType } : {}),
            disposition: 'attachment',
          })),
        });
        const messageId = headerValue(response.headers['x-message-id']);
        return { messageId: messageId || `sg-${m.emailId}` };
      } catch (err: any) {
        throw sendgridFailure(err);
      }
    },
    splitBatch: splitForSendgrid,
    async sendBatch(batch) {
      try {
        // The client directly: the mail helper would re-wrap every personalization, and we need the raw payload.
        const [response] = await client.request({ method: 'POST', url: '/v3/mail/send', body: sendgridBatchPayload(batch) });
        const messageId = headerValue(response.headers['x-message-id']) || `sg-${batch.recipients[0].emailId}`;
        return allAccepted(batch, messageId);
      } catch (err: any) {
        throw sendgridFailure(err);
      }
    },
  };
}
