import crypto from 'node:crypto';
import type { Config } from './config';

/**
 * "View in browser" links (docs/campaigns.md "View in browser"): `/v/<token>` shows one email as its
 * recipient got it. The token is the email id's 16 bytes and an HMAC of them under the server's
 * secret, signed for this purpose only (a subscription or tracking token never passes for one), so
 * a link names exactly one email and cannot be walked to another. They never expire: the page
 * answers 410 once the email's content is gone (retention, erasure).
 */

const PURPOSE = 'view-in-browser:';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const sign = (secret: string, id: Buffer) => crypto.createHmac('sha256', secret).update(PURPOSE).update(id).digest().subarray(0, 16).toString('base64url');

export function signViewToken(secret: string, emailId: string): string {
  const id = Buffer.from(emailId.replace(/-/g, ''), 'hex');
  return `${id.toString('base64url')}.${sign(secret, id)}`;
}

/** The email id a token was signed for, or null for anything malformed or forged. */
export function verifyViewToken(secret: string, token: string): string | null {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return null;
  const id = Buffer.from(payload, 'base64url');
  // Compared as text, both ways: base64url decoding ignores stray bits, which would let altered tokens pass.
  if (id.length !== 16 || id.toString('base64url') !== payload) return null;
  const given = Buffer.from(signature);
  const expected = Buffer.from(sign(secret, id));
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return null;
  const hex = id.toString('hex');
  const emailId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return UUID.test(emailId) ? emailId : null;
}

/** The template variable `{{ viewInBrowserUrl }}` of one email. */
export const viewInBrowserUrl = (config: Pick<Config, 'appUrl' | 'jwtSecret'>, emailId: string) =>
  `${config.appUrl}/v/${signViewToken(config.jwtSecret, emailId)}`;
