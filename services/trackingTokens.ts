import crypto from 'node:crypto';

/**
 * Open and click tokens (docs/tracking.md): `<payload>.<signature>`, both base64url. The payload is
 * a version byte, the email id's 16 bytes and, for a click, the link's index (2 bytes); never an
 * address, never a URL. A click token names a link the email row stored when it was rendered, so
 * even a token signed for one email can only ever lead where that email's own links lead: there is
 * nothing to forge an open redirect with.
 *
 * Each signature is half of an HMAC-SHA256 under the server's secret over `track-v2:`, the email
 * id's bytes and a block number: slot 0 signs the open token, slot i + 1 the click token of link
 * i, two slots to a block. A campaign signs an open and five or so clicks per recipient, so the
 * first eight slots are made in one call: PBKDF2 with a single iteration is exactly those HMACs,
 * one per 32-byte block (RFC 8018, 5.2: T_i = HMAC(secret, salt ‖ INT(i))), at the cost of about
 * one HMAC object instead of six. Verifying computes the one block it needs. Each slot is still a
 * pseudo-random function of the key, the email and the index, so one token tells nothing of
 * another. Tokens of the first format (an HMAC per token over its text, no version byte) still
 * verify: mail already delivered carries them.
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

// 128 bits of signature: forgery stays out of reach and the URL stays short. Two to a SHA-256 block.
const SIGNATURE_BYTES = 16;
const VERSION = 2;
// Blocks made at once when an email's first token is asked for: the pixel and seven links, the common case.
const FIRST_BLOCKS = 4;
const PURPOSE = Buffer.from('track-v2:');
const UUID = /^([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})$/i;

// The secret as a KeyObject and as bytes, made once per secret (re-encoding the key per email cost
// a third of a signature). Derived values, not collaborators.
const keys = new Map<string, { object: crypto.KeyObject; bytes: Buffer }>();
const keyOf = (secret: string) => {
  let key = keys.get(secret);
  if (!key) {
    const bytes = Buffer.from(secret, 'utf8');
    keys.set(secret, (key = { object: crypto.createSecretKey(bytes), bytes }));
  }
  return key;
};

/** The HMAC input of an email's blocks without the block number: the purpose and the id's 16 bytes. */
const blockSalt = (id: Buffer) => Buffer.concat([PURPOSE, id]);

/** Where slot `slot` lies: its block (from 1) and its offset in that block's 32 bytes. */
const slotPlace = (slot: number) => ({ block: Math.floor(slot / 2) + 1, at: (slot % 2) * SIGNATURE_BYTES });

/** Block `block` (from 1) of the email: HMAC(secret, salt ‖ INT32BE(block)), two slots. */
function signatureBlock(secret: string, salt: Buffer, block: number): Buffer {
  const counter = Buffer.alloc(4);
  counter.writeUInt32BE(block);
  return crypto.createHmac('sha256', keyOf(secret).object).update(salt).update(counter).digest();
}

/** Blocks 1 to FIRST_BLOCKS of the email in one call (PBKDF2, one iteration: the same HMACs). */
const firstBlocks = (secret: string, salt: Buffer) => crypto.pbkdf2Sync(keyOf(secret).bytes, salt, 1, FIRST_BLOCKS * 32, 'sha256');

const idBytes = (emailId: string) => {
  const m = UUID.exec(emailId);
  if (!m) throw new Error('a tracking token names an email by its uuid');
  return Buffer.from(m.slice(1).join(''), 'hex');
};

/** The tokens of one email; its first signatures are made at once, on the first token asked for. */
export function emailTokens(secret: string, emailId: string): { open(): string; click(link: number): string } {
  const id = idBytes(emailId);
  const salt = blockSalt(id);
  const payload = Buffer.alloc(19);
  payload[0] = VERSION;
  id.copy(payload, 1);
  let first: Buffer | undefined;
  const signature = (slot: number) => {
    const { block, at } = slotPlace(slot);
    const bytes = block <= FIRST_BLOCKS ? (first ??= firstBlocks(secret, salt)).subarray((block - 1) * 32) : signatureBlock(secret, salt, block);
    return bytes.toString('base64url', at, at + SIGNATURE_BYTES);
  };
  return {
    open: () => `${payload.toString('base64url', 0, 17)}.${signature(0)}`,
    click(link) {
      if (!Number.isInteger(link) || link < 0 || link >= MAX_TRACKED_LINKS) throw new Error('a click token names a link index from 0 to 65534');
      payload.writeUInt16BE(link, 17);
      return `${payload.toString('base64url')}.${signature(link + 1)}`;
    },
  };
}

export function signTrackingToken(secret: string, target: TrackingTarget): string {
  const tokens = emailTokens(secret, target.emailId);
  return target.kind === 'click' ? tokens.click(target.link ?? -1) : tokens.open();
}

// Compared as text: base64url decoding ignores stray bits, which would let altered tokens pass.
const sameText = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
};

const uuidOf = (bytes: Buffer) => {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

// The first format: an HMAC-SHA256 per token over a purpose prefix and the payload (no version byte).
const V1_PURPOSE: Record<TrackingKind, string> = { open: 'track-open:', click: 'track-click:' };
const v1Signature = (secret: string, kind: TrackingKind, payload: string) =>
  crypto
    .createHmac('sha256', keyOf(secret).object)
    .update(V1_PURPOSE[kind] + payload)
    .digest()
    .subarray(0, SIGNATURE_BYTES)
    .toString('base64url');

/** What a token was signed for, or null for anything malformed, forged, or of the other kind. */
export function verifyTrackingToken(secret: string, kind: TrackingKind, token: string): TrackingTarget | null {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return null;
  const bytes = Buffer.from(payload, 'base64url');
  if (bytes.toString('base64url') !== payload) return null;
  const click = kind === 'click';
  if (bytes.length === (click ? 19 : 17) && bytes[0] === VERSION) {
    const id = bytes.subarray(1, 17);
    const slot = click ? bytes.readUInt16BE(17) + 1 : 0;
    const { block, at } = slotPlace(slot);
    const expected = signatureBlock(secret, blockSalt(id), block).toString('base64url', at, at + SIGNATURE_BYTES);
    if (!sameText(signature, expected)) return null;
    return click ? { kind, emailId: uuidOf(id), link: slot - 1 } : { kind, emailId: uuidOf(id) };
  }
  if (bytes.length === (click ? 18 : 16)) {
    if (!sameText(signature, v1Signature(secret, kind, payload))) return null;
    const emailId = uuidOf(bytes.subarray(0, 16));
    return click ? { kind, emailId, link: bytes.readUInt16BE(16) } : { kind, emailId };
  }
  return null;
}

export const openPixelUrl = (base: string, secret: string, emailId: string) => `${base}/t/o/${signTrackingToken(secret, { kind: 'open', emailId })}`;
export const clickUrl = (base: string, secret: string, emailId: string, link: number) =>
  `${base}/t/c/${signTrackingToken(secret, { kind: 'click', emailId, link })}`;

/** The pixel and link URLs of one email under `base`. */
export function trackingUrls(base: string, secret: string, emailId: string): { pixel(): string; click(link: number): string } {
  const tokens = emailTokens(secret, emailId);
  return { pixel: () => `${base}/t/o/${tokens.open()}`, click: (link) => `${base}/t/c/${tokens.click(link)}` };
}
