import nodemailer from 'nodemailer';
import type { Config } from '../lib/config';
import type { DkimKeyLookup, DkimSigning } from './dkim';
import type { Address, OutgoingAttachment, OutgoingMessage, Transport } from './transport';
import { sendEach, TransportRejected } from './transport';
import { chunk } from '../lib/arrays';
import { bounceDomainFor, verpReturnPath } from '../lib/verp';

/**
 * EMAIL_TRANSPORT=smtp (docs/providers.md, "SMTP"): nodemailer's pooled SMTP client, one message per
 * recipient, each DKIM-signed with the key of its sender's domain (services/dkim.ts).
 */

/**
 * Recipients per `sendBatch` call. The pool sends a group's messages side by side; between groups
 * the campaign activity records outcomes and notices a cancellation, so a stopping worker waits
 * for one group at most.
 */
const GROUP_SIZE = 100;

/** Errors of a connection that never reached the server: nothing was handed over. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
/** Commands whose permanent refusal is about the recipient or the message: a bounce. */
const BOUNCE_COMMANDS = new Set(['RCPT TO', 'DATA']);

/**
 * What an SMTP failure says about the message. A reply code means the server answered, so the
 * message was not taken: 4xx (and 503, a sequence problem) may succeed later; 5xx never will, and
 * at RCPT or DATA it is a bounce. A connection that never opened sent nothing either. Anything else
 * (a connection lost mid-transaction, a timeout) leaves the outcome unknown and is returned as is.
 */
export function smtpFailure(err: any): Error {
  const code: unknown = err?.responseCode;
  if (typeof code === 'number' && code >= 400) {
    const permanent = code >= 500 && code !== 503;
    return new TransportRejected(
      `SMTP server answered ${String(err.response ?? code).slice(0, 500)}`,
      code,
      !permanent,
      permanent && BOUNCE_COMMANDS.has(err.command),
    );
  }
  if (UNREACHABLE.has(err?.originalCode) || UNREACHABLE.has(err?.code) || err?.code === 'EDNS') {
    return new TransportRejected(`SMTP server unreachable: ${err.originalCode ?? err.code}`, 0, true);
  }
  return err instanceof Error ? err : new Error(String(err));
}

const mailbox = (a: Address) => (a.name ? { name: a.name, address: a.email } : a.email);
const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1);

/** Our email id in the Message-ID, so a reply or bounce that quotes it finds the email. */
const messageIdFor = (emailId: string, from: string) => `<${emailId}@${domainOf(from) || 'localhost'}>`;

const attachmentsFor = (list: OutgoingAttachment[]) =>
  list.map((a) => ({ filename: a.filename, content: a.content, encoding: 'base64', ...(a.contentType ? { contentType: a.contentType } : {}) }));

export function smtpTransport(config: Config, dkimKeys: DkimKeyLookup): Transport {
  // One pool per transport, and one transport per process (services/runtime.ts): a worker's
  // transactional and campaign activities share SMTP_POOL_SIZE connections.
  const pool = nodemailer.createTransport({ url: config.email.smtp!.url, pool: true, maxConnections: config.email.smtp!.poolSize });

  /** A key that cannot be read (wrong ENCRYPTION_KEY, database down) stops the send before anything left: retried. */
  async function signing(projectId: string, from: string): Promise<DkimSigning | undefined> {
    try {
      return (await dkimKeys(projectId, from)) ?? undefined;
    } catch (err: any) {
      throw new TransportRejected(`DKIM key unavailable: ${err?.message ?? err}`, 0, true);
    }
  }

  /** One message, one SMTP transaction, signed with the sender domain's key (cached per worker). */
  async function send(m: OutgoingMessage): Promise<{ messageId: string }> {
    const dkim = await signing(m.projectId, m.from.email);
    try {
      const info = await pool.sendMail({
        messageId: messageIdFor(m.emailId, m.from.email),
        from: mailbox(m.from),
        to: mailbox(m.to),
        // The SMTP envelope, given rather than derived: nodemailer would otherwise collect RCPT TO from
        // every To/Cc/Bcc header, so a header that slipped past the API would add recipients no
        // contact, suppression or billing check saw. One message, one recipient. MAIL FROM is the
        // VERP return path (lib/verp.ts): a bounce or feedback report comes back to the inbound
        // server naming this email.
        envelope: { from: verpReturnPath(config.jwtSecret, m.emailId, bounceDomainFor(config.inbound.bounceDomain, m.from.email)), to: [m.to.email] },
        ...(m.replyTo ? { replyTo: m.replyTo } : {}),
        subject: m.subject,
        // Both parts: nodemailer puts them in a multipart/alternative, text first (the least preferred).
        text: m.text,
        html: m.html,
        headers: m.headers,
        attachments: attachmentsFor(m.attachments),
        ...(dkim ? { dkim } : {}),
      });
      return { messageId: info.messageId };
    } catch (err) {
      throw smtpFailure(err);
    }
  }

  return {
    name: 'smtp',
    reofferInterrupted: false,
    maxBatch: GROUP_SIZE,
    send,
    splitBatch: (recipients) => chunk(recipients, GROUP_SIZE),
    // The pool bounds the connections; a group's messages queue on it side by side.
    sendBatch: (batch) => sendEach(batch, GROUP_SIZE, send),
    close: () => pool.close(),
  };
}
