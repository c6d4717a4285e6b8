import { MailService } from '@sendgrid/mail';
import { Client } from '@sendgrid/client';
import type { Config } from '../lib/config';

export interface Address {
  email: string;
  name?: string | null;
}

export interface OutgoingAttachment {
  filename: string;
  /** base64 */
  content: string;
  contentType?: string | null;
}

export interface OutgoingMessage {
  emailId: string;
  projectId: string;
  to: Address;
  from: Address;
  replyTo?: string | null;
  subject: string;
  html: string;
  headers: Record<string, string>;
  attachments: OutgoingAttachment[];
}

export interface Transport {
  name: 'log' | 'sendgrid';
  /** Resolves with the provider's message id once the provider accepted the message. */
  send(message: OutgoingMessage): Promise<{ messageId: string }>;
}

/** A failure whose outcome is known: the provider answered, so nothing was accepted. */
export class TransportRejected extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

const addr = (a: Address) => (a.name ? { email: a.email, name: a.name } : { email: a.email });

function sendgridTransport(config: Config): Transport {
  const client = new Client();
  client.setApiKey(config.email.sendgridApiKey!);
  // setApiKey resets the base URL to the region's, so the override comes after it.
  if (config.email.sendgridApiUrl) client.setDefaultRequest('baseUrl', config.email.sendgridApiUrl.replace(/\/?$/, '/'));
  client.setDefaultRequest('timeout' as any, 30_000);
  const mail = new MailService();
  mail.setClient(client);
  return {
    name: 'sendgrid',
    async send(m) {
      try {
        const [response] = await mail.send({
          to: addr(m.to),
          from: addr(m.from),
          ...(m.replyTo ? { replyTo: m.replyTo } : {}),
          subject: m.subject,
          html: m.html,
          headers: m.headers,
          customArgs: { email_id: m.emailId, project_id: m.projectId },
          attachments: m.attachments.map((a) => ({
            filename: a.filename,
            content: a.content,
            ...(a.contentType ? { type: a.contentType } : {}),
            disposition: 'attachment',
          })),
        });
        const messageId = String(response.headers['x-message-id'] ?? '');
        return { messageId: messageId || `sg-${m.emailId}` };
      } catch (err: any) {
        const status: number | undefined = err?.code ?? err?.response?.statusCode;
        if (typeof status === 'number' && status >= 400) {
          throw new TransportRejected(`SendGrid answered ${status}: ${JSON.stringify(err?.response?.body ?? err.message)}`, status, status === 429 || status >= 500);
        }
        if (['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'].includes(err?.code)) {
          throw new TransportRejected(`SendGrid unreachable: ${err.code}`, 0, true);
        }
        // No answer: the provider may or may not have accepted it.
        throw err;
      }
    },
  };
}

/** Stores nothing beyond the email row itself: the activity records the rendered message there. */
const logTransport: Transport = {
  name: 'log',
  async send(m) {
    return { messageId: `log-${m.emailId}` };
  },
};

export function createTransport(config: Config): Transport {
  return config.email.transport === 'sendgrid' ? sendgridTransport(config) : logTransport;
}
