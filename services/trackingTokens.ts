import crypto from 'node:crypto';

/**
 * Open and click tokens (docs/tracking.md): `<payload>.<signature>`, both base64url. The payload is
 * the email id's 16 bytes and, for a click, the link's index (2 bytes); never an address, never a
 * URL. A click token names a link the email row stored when it was rendered, so even a token signed
 * for one email can only ever lead where that email's own links lead: there is nothing to forge an
 * open redirect with.
 */

export type TrackingKind = 'open' | 'click';

export interface TrackingTarget {
  kind: TrackingKind;
  emailId: string;
  /** The link's position in the email's stored links (clicks only). */
  link?: number;
}

/** Links past this many in one body are left as they are (the index is two bytes). */
export const MAX_TRACKED_LINKS = 0xffff;

// The signed input names its purpose, so an open token is no click token and neither passes for a
// subscription token or a JWT signed with the same secret.
const PURPOSE: Record<TrackingKind, string> = { open: 'track-open:', click: 'track-click:' };
// 128 bits of HMAC-SHA256: forgery stays out of reach and the URL stays short.
const SIGNATURE_BYTES = 16;
const UUID = /^([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})$/i;

// The secret as a KeyObject, made once per secret: HMAC with it skips re-encoding the key on every
// token (about a third of a token's cost; a tracked email signs one per link). A derived value, not a collaborator.
const keys = new Map<string, crypto.KeyObject>();
const keyOf = (secret: string) => {
  let key = keys.get(secret);
  if (!key) keys.set(secret, (key = crypto.createSecretKey(Buffer.from(secret, 'utf8'))));
  return key;
};

const sign = (secret: string, kind: TrackingKind, payload: string) =>
  crypto
    .createHmac('sha256', keyOf(secret))
    .update(PURPOSE[kind] + payload)
    .digest()
    .subarray(0, SIGNATURE_BYTES)
    .toString('base64url');

/** The tokens of one email: its id is parsed once for the pixel and every link. */
export function emailTokens(secret: string, emailId: string): { open(): string; click(link: number): string } {
  const m = UUID.exec(emailId);
  if (!m) throw new Error('a tracking token names an email by its uuid');
  const bytes = Buffer.alloc(18);
  bytes.write(m.slice(1).join(''), 'hex');
  const token = (kind: TrackingKind, payload: string) => `${payload}.${sign(secret, kind, payload)}`;
  return {
    open: () => token('open', bytes.subarray(0, 16).toString('base64url')),
    click(link) {
      if (!Number.isInteger(link) || link < 0 || link >= MAX_TRACKED_LINKS) throw new Error('a click token names a link index from 0 to 65534');
      bytes.writeUInt16BE(link, 16);
      return token('click', bytes.toString('base64url'));
    },
  };
}

export function signTrackingToken(secret: string, target: TrackingTarget): string {
  const tokens = emailTokens(secret, target.emailId);
  return target.kind === 'click' ? tokens.click(target.link ?? -1) : tokens.open();
}

/** What a token was signed for, or null for anything malformed, forged, or of the other kind. */
export function verifyTrackingToken(secret: string, kind: TrackingKind, token: string): TrackingTarget | null {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return null;
  // Compared as text: base64url decoding ignores stray bits, which would let altered tokens pass.
  const given = Buffer.from(signature);
  const expected = Buffer.from(sign(secret, kind, payload));
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return null;
  const bytes = Buffer.from(payload, 'base64url');
  if (bytes.length !== (kind === 'click' ? 18 : 16) || bytes.toString('base64url') !== payload) return null;
  const hex = bytes.subarray(0, 16).toString('hex');
  const emailId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return kind === 'click' ? { kind, emailId, link: bytes.readUInt16BE(16) } : { kind, emailId };
}

export const openPixelUrl = (base: string, secret: string, emailId: string) => `${base}/t/o/${signTrackingToken(secret, { kind: 'open', emailId })}`;
export const clickUrl = (base: string, secret: string, emailId: string, link: number) =>
  `${base}/t/c/${signTrackingToken(secret, { kind: 'click', emailId, link })}`;

/** The pixel and link URLs of one email under `base`. */
export function trackingUrls(base: string, secret: string, emailId: string): { pixel(): string; click(link: number): string } {
  const tokens = emailTokens(secret, emailId);
  return { pixel: () => `${base}/t/o/${tokens.open()}`, click: (link) => `${base}/t/c/${tokens.click(link)}` };
}
