import crypto from 'node:crypto';

/**
 * VERP return paths (docs/inbound.md): every message we send over SMTP says MAIL FROM
 * `bounces+<token>@<bounce domain>`, so a bounce or a feedback report names the email it is about
 * in its envelope recipient, whatever the reporting server kept of the original message.
 *
 * The token is the email id (hex, no dashes) and a truncated HMAC of it: lower-case hex only,
 * because mail servers may fold the local part's case, and no address, because the return path
 * is visible to every server on the way. 32 + 20 hex digits keep `bounces+<token>` within the
 * 64-octet local part.
 */

const LOCAL_PREFIX = 'bounces+';
const MAC_HEX = 20;
// Signed input differs from the other tokens signed with the same secret (lib/unsubscribe.ts), so none passes for another.
const PURPOSE = 'verp:';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TOKEN = /^([0-9a-f]{32})([0-9a-f]{20})$/;

const mac = (secret: string, idHex: string) =>
  crypto
    .createHmac('sha256', secret)
    .update(PURPOSE + idHex)
    .digest('hex')
    .slice(0, MAC_HEX);

export function verpToken(secret: string, emailId: string): string {
  const id = emailId.toLowerCase();
  if (!UUID.test(id)) throw new Error(`not an email id: ${emailId}`);
  const hex = id.replace(/-/g, '');
  return hex + mac(secret, hex);
}

/** The email id a token was signed for, or null for anything malformed or forged. */
export function verifyVerpToken(secret: string, token: string): string | null {
  const m = TOKEN.exec(token.toLowerCase());
  if (!m) return null;
  const given = Buffer.from(m[2]);
  const expected = Buffer.from(mac(secret, m[1]));
  if (!crypto.timingSafeEqual(given, expected)) return null;
  const h = m[1];
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** `BOUNCE_DOMAIN`, else the sender domain's `bounces.` subdomain. */
export function bounceDomainFor(configured: string | undefined, fromAddress: string): string {
  if (configured) return configured;
  const domain = fromAddress.slice(fromAddress.lastIndexOf('@') + 1).toLowerCase();
  return `bounces.${domain || 'localhost'}`;
}

/** The envelope sender of one email. */
export function verpReturnPath(secret: string, emailId: string, bounceDomain: string): string {
  return `${LOCAL_PREFIX}${verpToken(secret, emailId)}@${bounceDomain}`;
}

/** The email id named by a return path we signed (any domain: the token alone proves it), or null. */
export function emailIdOfReturnPath(secret: string, address: string): string | null {
  const at = address.lastIndexOf('@');
  const local = (at < 0 ? address : address.slice(0, at)).toLowerCase();
  if (!local.startsWith(LOCAL_PREFIX)) return null;
  return verifyVerpToken(secret, local.slice(LOCAL_PREFIX.length));
}
