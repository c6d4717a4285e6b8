import { simpleParser, type AddressObject } from 'mailparser';
import { headerValue, mimeLeaves, splitHeader } from './mimeParts';
import { classifyReport, type Report } from './reports';
import { replaceRefused } from '../../lib/hostileText';

/**
 * One accepted message as the rest of the inbound path needs it (docs/inbound.md). Anything that
 * is not a message answers 550 and is not stored: the checks here are about shape, not content,
 * and never throw (test/unit/inboundFuzz.test.ts feeds them hostile MIME).
 */

export interface InboundAttachment {
  filename: string | null;
  contentType: string;
  size: number;
}

export interface InboundMail {
  from: { address: string; name: string | null };
  to: string[];
  subject: string | null;
  messageId: string | null;
  inReplyTo: string | null;
  /** Message ids of In-Reply-To and References, without angle brackets, most recent first. */
  thread: string[];
  /** The first TEXT_LIMIT characters of the text body (generated from the HTML when there is no text part). */
  text: string;
  attachments: InboundAttachment[];
  /** What the message reports, for mail to a VERP return path. */
  report: Report;
  /** The Message-ID of the message a report returns (its `message/rfc822` or `text/rfc822-headers` part). */
  originalMessageId: string | null;
}

export type ParseResult = { ok: true; mail: InboundMail } | { ok: false; reason: string };

export const TEXT_LIMIT = 10 * 1024;
/** A header section larger than this is not mail a person or a reporting server sends. */
export const MAX_HEADER_BYTES = 256 * 1024;
/** More multipart declarations than this is a MIME bomb, not a message. */
const MAX_MULTIPARTS = 100;
const MAX_LIST = 50;

const FIELD_LINE = /^[\x21-\x39\x3b-\x7e]+[ \t]*:/;

/** Why the header section is not one, or null. */
function headerProblem(header: string): string | null {
  if (Buffer.byteLength(header) > MAX_HEADER_BYTES) return `header section larger than ${MAX_HEADER_BYTES} bytes`;
  const lines = header.split(/\r?\n/);
  if (!FIELD_LINE.test(lines[0] ?? '')) return 'the message does not start with a header field';
  const bad = lines.findIndex((l) => !(FIELD_LINE.test(l) || /^[ \t]/.test(l)));
  return bad >= 0 ? `line ${bad + 1} of the header section is neither a header field nor its continuation` : null;
}

/** Postgres refuses NUL (text, jsonb) and lone surrogates, which hostile mail carries in any field. */
const clean = (s: string): string => replaceRefused(s);
const cleanOrNull = (s: string | null | undefined): string | null => (s == null ? null : clean(s));

const ids = (v: unknown): string[] => {
  const list = Array.isArray(v) ? v : typeof v === 'string' ? v.split(/\s+/) : [];
  return list
    .filter((x): x is string => typeof x === 'string')
    .map((x) => clean(x.trim().replace(/^<|>$/g, '')))
    .filter((x) => x.length > 0 && x.length <= 998);
};

const addresses = (v: AddressObject | AddressObject[] | undefined): string[] =>
  (Array.isArray(v) ? v : v ? [v] : [])
    .flatMap((o) => o.value)
    .map((a) => a.address && clean(a.address.toLowerCase()))
    .filter((a): a is string => !!a)
    .slice(0, MAX_LIST);

export async function parseInbound(raw: Buffer): Promise<ParseResult> {
  const text = raw.toString('utf8');
  const { header } = splitHeader(text);
  const problem = headerProblem(header);
  if (problem) return { ok: false, reason: problem };
  if ((text.match(/content-type[ \t]*:[ \t]*multipart\//gi)?.length ?? 0) > MAX_MULTIPARTS) return { ok: false, reason: 'too many nested MIME parts' };
  let parsed: Awaited<ReturnType<typeof simpleParser>>;
  try {
    parsed = await simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true, maxHtmlLengthToParse: 1024 * 1024 });
  } catch (err) {
    return { ok: false, reason: `unparseable MIME: ${String((err as Error)?.message ?? err).slice(0, 200)}` };
  }
  const from = parsed.from?.value.find((a) => a.address);
  if (!from?.address) return { ok: false, reason: 'no From address' };
  const inReplyTo = ids(parsed.inReplyTo)[0] ?? null;
  const thread = [...new Set([...(inReplyTo ? [inReplyTo] : []), ...ids(parsed.references).reverse()])].slice(0, MAX_LIST);
  const body = clean(parsed.text ?? '');
  const leaves = mimeLeaves(text);
  const subject = cleanOrNull(parsed.subject);
  const original = leaves.find((l) => l.contentType === 'message/rfc822' || l.contentType === 'text/rfc822-headers');
  const originalMessageId = original ? (ids(headerValue(splitHeader(original.body).header, 'message-id') ?? '')[0] ?? null) : null;
  return {
    ok: true,
    mail: {
      from: { address: clean(from.address.toLowerCase()), name: cleanOrNull(from.name || null) },
      to: addresses(parsed.to),
      subject,
      messageId: ids(parsed.messageId)[0] ?? null,
      inReplyTo,
      thread,
      text: body.slice(0, TEXT_LIMIT),
      attachments: parsed.attachments.slice(0, MAX_LIST).map((a) => ({ filename: cleanOrNull(a.filename), contentType: clean(a.contentType), size: a.size })),
      originalMessageId,
      report: classifyReport({
        subject,
        fromAddress: from.address,
        deliveryStatus: leaves.filter((l) => /^message\/(global-)?delivery-status$/.test(l.contentType)).map((l) => clean(l.body)),
        feedbackReport: leaves.filter((l) => l.contentType === 'message/feedback-report').map((l) => clean(l.body)),
        text: body,
        failedRecipients: cleanOrNull(headerValue(header, 'x-failed-recipients')),
      }),
    },
  };
}
