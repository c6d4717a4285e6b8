/**
 * The transport contract: what a provider is handed and what it answers. Every transport
 * (services/*Transport.ts) implements it; the activities speak only to it.
 */
import type { TransportName } from '../lib/config';
import { forEachLimit } from '../lib/concurrency';

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
  /** The text/plain part sent beside the HTML (every transport sends both, as multipart/alternative). */
  text: string;
  headers: Record<string, string>;
  attachments: OutgoingAttachment[];
}

/** One recipient of a campaign batch, rendered by us (subject, body and headers are per recipient). */
export interface BatchRecipient {
  emailId: string;
  to: Address;
  subject: string;
  html: string;
  text: string;
  headers: Record<string, string>;
}

/** Many recipients of one campaign handed over in one provider call. */
export interface OutgoingBatch {
  projectId: string;
  campaignId: string;
  from: Address;
  replyTo?: string | null;
  recipients: BatchRecipient[];
}

/**
 * How a group went, recipient by recipient. A provider that takes the group in one call accepts
 * all of it (or throws for all of it); one that is offered each recipient alone (SMTP) answers
 * each differently.
 */
export interface BatchResult {
  /** Accepted, each with its provider message id (one call for the group gives them all the same). */
  accepted: Array<{ emailId: string; messageId: string }>;
  /** Refused with a known outcome: nothing was handed over. */
  rejected: Array<{ emailId: string; error: TransportRejected }>;
  /** No answer: the provider may have taken these. */
  unknown: Array<{ emailId: string; error: Error }>;
}

export interface Transport {
  name: TransportName;
  /**
   * Whether a send interrupted mid-hand-over (the row still SENDING) may be offered again. True only
   * when nothing can have left the building: the log transport's "send" is the row update itself.
   * A provider may have taken the message, so for it the interrupted send fails instead of risking a copy.
   */
  reofferInterrupted: boolean;
  /** Resolves with the provider's message id once the provider accepted the message. */
  send(message: OutgoingMessage): Promise<{ messageId: string }>;
  /** The most recipients one `sendBatch` call carries (`splitBatch` never makes a larger group). */
  maxBatch: number;
  /** Splits recipients into groups that can each go in one `sendBatch` call. */
  splitBatch(recipients: BatchRecipient[]): BatchRecipient[][];
  /**
   * Offers the group; resolves with each recipient's outcome. A failure of the whole group (one
   * provider call refused or unanswered) may be thrown instead, as `send` throws.
   */
  sendBatch(batch: OutgoingBatch): Promise<BatchResult>;
  /** Closes what the transport holds open (the SMTP pool), at shutdown. */
  close?(): void;
}

/** A failure whose outcome is known: the provider answered, so nothing was accepted. */
export class TransportRejected extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly retryable: boolean,
    /** The receiving side refused the recipient or the message for good (an SMTP 5xx at RCPT or DATA): a bounce. */
    readonly bounce = false,
  ) {
    super(message);
  }
}

/** A group taken in one call: every recipient accepted under the call's message id. */
export const allAccepted = (batch: OutgoingBatch, messageId: string): BatchResult => ({
  accepted: batch.recipients.map((r) => ({ emailId: r.emailId, messageId })),
  rejected: [],
  unknown: [],
});

/**
 * A group offered recipient by recipient (SMTP, SES: one message per call), at most `concurrency`
 * calls in flight: each recipient's outcome is its own, sorted the way `sendBatch` answers.
 */
export async function sendEach(
  batch: OutgoingBatch,
  concurrency: number,
  send: (m: OutgoingMessage & { campaignId: string }) => Promise<{ messageId: string }>,
): Promise<BatchResult> {
  const result: BatchResult = { accepted: [], rejected: [], unknown: [] };
  await forEachLimit(batch.recipients, concurrency, async (r) => {
    try {
      const { messageId } = await send({
        ...r,
        projectId: batch.projectId,
        campaignId: batch.campaignId,
        from: batch.from,
        replyTo: batch.replyTo,
        attachments: [],
      });
      result.accepted.push({ emailId: r.emailId, messageId });
    } catch (err) {
      if (err instanceof TransportRejected) result.rejected.push({ emailId: r.emailId, error: err });
      else result.unknown.push({ emailId: r.emailId, error: err instanceof Error ? err : new Error(String(err)) });
    }
  });
  return result;
}
