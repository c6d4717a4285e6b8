import { SESv2Client, SendEmailCommand, type SendEmailCommandInput } from '@aws-sdk/client-sesv2';
import { encodeWord, isPlainText } from 'nodemailer/lib/mime-funcs';
import type { Config } from '../lib/config';
import type { Address, OutgoingMessage, Transport } from './transport';
import { sendEach, TransportRejected } from './transport';
import { chunk } from '../lib/arrays';

/**
 * Amazon SES through the official SESv2 client (`SendEmail`, `Content.Simple`). Simple content
 * carries everything we send: per-message headers (List-Unsubscribe and the caller's own) and
 * attachments, and SES builds and encodes the MIME itself, so no message is assembled here as
 * Raw would need. Each message has one recipient and its own SES message id, which is stored on
 * the email; SES notifications name it (`mail.messageId`) along with our message tags
 * (`email_id`, `project_id`, `campaign_id`), which is how POST /webhooks/ses finds the email.
 */

/**
 * A display name goes as is when it is plain ASCII (quoted), else as an RFC 2047 encoded word, as
 * SES asks for address fields.
 */
function mailbox(a: Address): string {
  if (!a.name) return a.email;
  const name = isPlainText(a.name) ? `"${a.name.replace(/["\\]/g, '\\$&')}"` : encodeWord(a.name, 'Q', 52);
  return `${name} <${a.email}>`;
}

const UTF8 = 'UTF-8';

/** SES tag values allow letters, digits, `_` and `-` only: our uuids qualify. */
const tags = (pairs: Record<string, string | null | undefined>) =>
  Object.entries(pairs)
    .filter((p): p is [string, string] => !!p[1])
    .map(([Name, Value]) => ({ Name, Value }));

/** A transactional message, or one recipient of a campaign group (which names its campaign). */
type OneMessage = OutgoingMessage & { campaignId?: string };

export function sendEmailInput(m: OneMessage, configurationSet?: string): SendEmailCommandInput {
  return {
    FromEmailAddress: mailbox(m.from),
    // The recipient and nobody else: SES sends to Destination, never to addresses in Headers.
    Destination: { ToAddresses: [mailbox(m.to)] },
    ...(m.replyTo ? { ReplyToAddresses: [m.replyTo] } : {}),
    Content: {
      Simple: {
        Subject: { Data: m.subject, Charset: UTF8 },
        Body: { Text: { Data: m.text, Charset: UTF8 }, Html: { Data: m.html, Charset: UTF8 } },
        ...(Object.keys(m.headers).length ? { Headers: Object.entries(m.headers).map(([Name, Value]) => ({ Name, Value })) } : {}),
        ...(m.attachments.length
          ? {
              Attachments: m.attachments.map((a) => ({
                FileName: a.filename,
                RawContent: Buffer.from(a.content, 'base64'),
                ContentDisposition: 'ATTACHMENT' as const,
                ...(a.contentType ? { ContentType: a.contentType } : {}),
              })),
            }
          : {}),
      },
    },
    EmailTags: tags({ email_id: m.emailId, project_id: m.projectId, campaign_id: m.campaignId }),
    ...(configurationSet ? { ConfigurationSetName: configurationSet } : {}),
  };
}

/**
 * Recipients per `sendBatch` call, and SendEmail calls in flight at once within one. Between
 * groups the campaign activity records outcomes and notices a cancellation; the project's send
 * throttle paces the groups, and SES's own account rate answers 429 (retried) beyond it.
 */
const GROUP_SIZE = 50;
const CONCURRENCY = 10;

/** Connection failures that happen before a request is written: SES cannot have taken the message. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * An answer from SES (throttled, refused, failed) is a known outcome: TransportRejected, retryable
 * for throttling and server faults. No answer (a timeout, a reset connection) is rethrown as is:
 * SES may have taken the message, and the caller must not offer it again.
 */
function sesFailure(err: any): Error {
  const status: number | undefined = err?.$metadata?.httpStatusCode;
  if (typeof status === 'number' && status >= 400) {
    const retryable = status === 429 || status >= 500 || err?.name === 'TooManyRequestsException' || err?.name === 'LimitExceededException';
    return new TransportRejected(`SES answered ${status} ${err?.name ?? ''}: ${err?.message ?? ''}`.trim(), status, retryable);
  }
  if (NOT_SENT.has(err?.code) || err?.name === 'CredentialsProviderError') {
    return new TransportRejected(`SES unreachable: ${err.code ?? err.name}`, 0, true);
  }
  return err;
}

export function sesTransport(config: Config): Transport {
  const { ses } = config.email;
  const client = new SESv2Client({
    region: ses.region,
    ...(ses.endpoint ? { endpoint: ses.endpoint } : {}),
    ...(ses.accessKeyId && ses.secretAccessKey ? { credentials: { accessKeyId: ses.accessKeyId, secretAccessKey: ses.secretAccessKey } } : {}),
    // One attempt: the SDK would also retry a request whose answer was lost, which can send a
    // second copy. Retries of known outcomes are the activity's (Temporal's) job.
    maxAttempts: 1,
    requestHandler: { connectionTimeout: 10_000, requestTimeout: 30_000 },
  });

  async function sendOne(m: OneMessage): Promise<{ messageId: string }> {
    try {
      const out = await client.send(new SendEmailCommand(sendEmailInput(m, ses.configurationSet)));
      // Accepted either way; without SES's id, notifications still find the email by its tag.
      return { messageId: out.MessageId || `ses-${m.emailId}` };
    } catch (err) {
      throw sesFailure(err);
    }
  }

  return {
    name: 'ses',
    reofferInterrupted: false,
    maxBatch: GROUP_SIZE,
    send: (m) => sendOne(m),
    splitBatch: (recipients) => chunk(recipients, GROUP_SIZE),
    // SendEmail takes one message, so each recipient is its own call with its own outcome and SES message id.
    sendBatch: (batch) => sendEach(batch, CONCURRENCY, sendOne),
  };
}
