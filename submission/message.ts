import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { isForbiddenHeader } from '../lib/mailHeaders';
import type { SendRequest } from '../services/send';

/**
 * A submitted message as POST /v1/send's request (services/send.ts `SendRequest`): the envelope
 * names the recipients (RCPT TO, so Cc and Bcc recipients are there and no header adds one), the
 * message gives the rest: From (its name too), Subject, Reply-To, the HTML and text parts,
 * attachments, and the headers the API would accept in `headers` (lib/mailHeaders.ts).
 */
export interface SubmittedMessage {
  request: SendRequest;
  /** The Message-ID, brackets included: the idempotency key (submission/idempotency.ts). */
  messageId?: string;
}

/** Header values /v1/send accepts: one line of at most 998 characters, under an HTTP-token name. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,200}$/;
const MAX_HEADERS = 50;

/**
 * Mail from an SMTP client is finished text, not a template: `{{` and `{%` are written out as Liquid
 * outputs of themselves, so the renderer (services/render.ts) gives back exactly what was submitted.
 */
export const literalLiquid = (source: string) => source.replace(/\{[{%]/g, (m) => `{{ "${m}" }}`);

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function firstAddress(field: AddressObject | AddressObject[] | undefined): { email: string; name?: string } | undefined {
  for (const group of Array.isArray(field) ? field : field ? [field] : []) {
    for (const a of group.value) if (a.address) return { email: a.address, name: a.name || undefined };
  }
  return undefined;
}

/** Display names the headers give the envelope's recipients (To and Cc; Bcc rarely survives). */
function namesOf(parsed: ParsedMail): Map<string, string> {
  const names = new Map<string, string>();
  for (const field of [parsed.to, parsed.cc, parsed.bcc]) {
    for (const group of Array.isArray(field) ? field : field ? [field] : []) {
      for (const a of group.value) if (a.address && a.name) names.set(a.address.toLowerCase(), a.name.replace(/[\r\n]/g, ' ').slice(0, 200));
    }
  }
  return names;
}

function customHeaders(parsed: ParsedMail): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  let n = 0;
  for (const { key, line } of parsed.headerLines) {
    if (isForbiddenHeader(key) || n >= MAX_HEADERS) continue;
    const name = line.slice(0, line.indexOf(':')).trim();
    const value = line
      .slice(line.indexOf(':') + 1)
      .replace(/\r?\n[ \t]+/g, ' ')
      .trim();
    if (!HEADER_NAME.test(name) || !value || value.length > 998 || /[\r\n]/.test(value)) continue;
    out[name] = value;
    n++;
  }
  return n ? out : undefined;
}

export async function readSubmittedMessage(raw: Buffer, envelope: { mailFrom: string | null; rcptTo: string[] }): Promise<SubmittedMessage> {
  const parsed = await simpleParser(raw);
  const names = namesOf(parsed);
  const from = firstAddress(parsed.from) ?? (envelope.mailFrom ? { email: envelope.mailFrom } : undefined);
  const text = parsed.text?.trim() ? parsed.text : undefined;
  // A text-only message still needs an HTML part: mailparser's rendering of the text.
  const html = parsed.html || parsed.textAsHtml || `<pre>${escapeHtml(parsed.text ?? '')}</pre>`;
  const request: SendRequest = {
    to: envelope.rcptTo.map((email) => ({ email, name: names.get(email.toLowerCase()) })),
    from,
    subject: literalLiquid((parsed.subject ?? '').replace(/[\r\n]/g, ' ')),
    body: literalLiquid(html),
    text: text === undefined ? undefined : literalLiquid(text),
    reply: firstAddress(parsed.replyTo)?.email,
    headers: customHeaders(parsed),
    // Images the HTML embeds by cid: are inlined by mailparser (data: URLs); the rest are attachments.
    attachments: parsed.attachments
      .filter((a) => !a.related)
      .map((a, i) => ({
        filename: (a.filename || `attachment-${i + 1}`).replace(/[\r\n\\/]/g, '_').slice(0, 255),
        content: a.content.toString('base64'),
        contentType: a.contentType || undefined,
      })),
  };
  return { request, messageId: parsed.messageId };
}
