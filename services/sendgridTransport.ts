import { MailService } from '@sendgrid/mail';
import { Client } from '@sendgrid/client';
import type { Config } from '../lib/config';
import { allAccepted, Transport, TransportRejected } from './transport';
import { addr, MAX_BATCH_RECIPIENTS, sendgridBatchPayload, splitForSendgrid } from './sendgridBatches';

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
