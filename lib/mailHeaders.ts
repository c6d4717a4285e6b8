/**
 * Mail headers a caller may not set through `headers` of POST /v1/send (docs/api.md "Custom
 * headers"). They are the ones that decide who gets the message, who it claims to be from, how it
 * is built, or vouch for it: nodemailer turns `Cc`/`Bcc`/`To` headers into envelope recipients, who
 * would skip contacts, suppression, billing, the send throttle and bounce accounting; `From`,
 * `Sender` or `Return-Path` would send as an address whose domain was never verified; MIME and
 * signature headers would contradict the message the transport builds and signs; `List-*` are ours
 * (the one-click unsubscribe of marketing mail); `X-SES-*`, `X-SG-*` and `X-SMTPAPI` steer the
 * providers themselves (configuration sets, SendGrid's SMTP API recipient lists).
 *
 * `In-Reply-To` and `References` stay allowed: they only thread the message in the reader's client.
 * Every field the service sets from the request (subject, from, reply, to) has its own body field.
 */
const EXACT: ReadonlySet<string> = new Set([
  // Addresses and routing
  'to',
  'cc',
  'bcc',
  'from',
  'sender',
  'reply-to',
  'return-path',
  'delivered-to',
  'envelope-to',
  'x-original-to',
  'errors-to',
  'return-receipt-to',
  'disposition-notification-to',
  'received',
  // Identity and structure of the message we build
  'subject',
  'message-id',
  'date',
  'mime-version',
  // Signatures and verdicts
  'dkim-signature',
  'domainkey-signature',
  'authentication-results',
  'received-spf',
  // Provider controls
  'x-smtpapi',
]);

/** Families matched by prefix: `Content-Type`, `Content-Transfer-Encoding`, `Resent-Bcc`, `ARC-Seal`, `List-Unsubscribe`… */
const PREFIXES: readonly string[] = ['content-', 'resent-', 'arc-', 'list-', 'x-ses-', 'x-sg-'];

/** The refused names and families as docs/api.md prints them (test/unit/mailHeaders.test.ts compares). */
export const FORBIDDEN_HEADER_LIST: readonly string[] = [...EXACT, ...PREFIXES.map((p) => `${p}*`)];

/** Whether a caller may not set `name` (case-insensitive; surrounding blanks ignored). */
export function isForbiddenHeader(name: string): boolean {
  const n = name.trim().toLowerCase();
  return EXACT.has(n) || PREFIXES.some((p) => n.startsWith(p));
}

/**
 * A caller's headers without the forbidden ones. Requests are refused before they get here; this
 * covers rows stored before the rule existed, which the worker still delivers.
 */
export function withoutForbiddenHeaders(headers: Record<string, string> | null | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) if (!isForbiddenHeader(name)) out[name] = value;
  return out;
}
