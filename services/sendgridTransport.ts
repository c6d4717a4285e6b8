import { MailService } from '@sendgrid/mail';
import { Client } from '@sendgrid/client';
import type { Config } from '../lib/config';
import { chunk } from '../lib/arrays';
import { allAccepted, Address, BatchRecipient, OutgoingBatch, Transport, TransportRejected } from './transport';

/** SendGrid's cap on personalizations (recipients) per /v3/mail/send call. */
export const MAX_BATCH_RECIPIENTS = 1000;

/**
 * Per-recipient bodies travel as a substitution of this tag, the message's whole content. SendGrid
 * caps a personalization's substitutions at 10,000 bytes; the margin covers the key and JSON quoting.
 */
const BODY_TAG = '%svc_body%';
const MAX_SUBSTITUTED_BODY_BYTES = 9_500;


/**
 * Groups for SendGrid: recipients sharing one rendered body go together with that body as the
 * content (any size); differing bodies that fit a substitution go together as substitutions; a
 * larger unique body goes alone. Every group holds at most MAX_BATCH_RECIPIENTS.
 */
export function splitForSendgrid(recipients: BatchRecipient[]): BatchRecipient[][] {
  const byBody = new Map<string, BatchRecipient[]>();
  for (const r of recipients) {
    const same = byBody.get(r.html);
    if (same) same.push(r);
    else byBody.set(r.html, [r]);
  }
  const groups: BatchRecipient[][] = [];
  const substituted: BatchRecipient[] = [];
  for (const [html, list] of byBody) {
    if (list.length === 1 && Buffer.byteLength(html) <= MAX_SUBSTITUTED_BODY_BYTES) substituted.push(list[0]);
    else groups.push(...chunk(list, MAX_BATCH_RECIPIENTS));
  }
  return [...chunk(substituted, MAX_BATCH_RECIPIENTS), ...groups];
}

/**
 * The /v3/mail/send body of a batch: one personalization per recipient with its own subject,
 * headers and `email_id` custom arg (how provider events find the email row); the body is the
 * shared content when every recipient has the same one, else a per-recipient substitution.
 */
export function sendgridBatchPayload(batch: OutgoingBatch) {
  const first = batch.recipients[0];
  const shared = batch.recipients.every((r) => r.html === first.html);
  return {
    from: addr(batch.from),
    ...(batch.replyTo ? { reply_to: { email: batch.replyTo } } : {}),
    personalizations: batch.recipients.map((r) => ({
      // Exactly the one recipient: no cc or bcc, whatever the headers carry.
      to: [addr(r.to)],
      subject: r.subject,
      ...(Object.keys(r.headers).length ? { headers: r.headers } : {}),
      ...(shared ? {} : { substitutions: { [BODY_TAG]: r.html } }),
      custom_args: { email_id: r.emailId },
    })),
    content: [{ type: 'text/html', value: shared ? first.html : BODY_TAG }],
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
    async send(m) {
      try {
        const [response] = await mail.send({
          to: addr(m.to),
          from: addr(m.from),
          ...(m.replyTo ? { replyTo: m.replyTo } : {}),
          subject: m.subject,
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
