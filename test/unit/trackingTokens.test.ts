import crypto from 'node:crypto';
import { emailTokens, signTrackingToken, verifyTrackingToken, openPixelUrl, clickUrl } from '../../services/trackingTokens';
import { signSubscriptionToken } from '../../lib/unsubscribe';

const SECRET = 'a-test-secret-of-enough-length';
const EMAIL = '0b9f6c3e-1d2a-4c5b-8e7f-9a0b1c2d3e4f';

describe('tracking tokens', () => {
  it('carry the email id and the link index, and nothing else', () => {
    const open = signTrackingToken(SECRET, { kind: 'open', emailId: EMAIL });
    const click = signTrackingToken(SECRET, { kind: 'click', emailId: EMAIL, link: 7 });
    expect(verifyTrackingToken(SECRET, 'open', open)).toEqual({ kind: 'open', emailId: EMAIL });
    expect(verifyTrackingToken(SECRET, 'click', click)).toEqual({ kind: 'click', emailId: EMAIL, link: 7 });
    // A version byte, 16 bytes of id (+2 of index) and 16 of signature: no address, no URL fits in there.
    expect(Buffer.from(click.split('.')[0], 'base64url')).toHaveLength(19);
    expect(click.length).toBeLessThan(60);
  });

  it('refuse another secret, an altered payload or signature, and the other kind', () => {
    const click = signTrackingToken(SECRET, { kind: 'click', emailId: EMAIL, link: 0 });
    const [payload, signature] = click.split('.');
    expect(verifyTrackingToken('another-secret-of-enough-length', 'click', click)).toBeNull();
    // Another link of the same email: the index is signed.
    const other = Buffer.from(payload, 'base64url');
    other.writeUInt16BE(1, 17);
    expect(verifyTrackingToken(SECRET, 'click', `${other.toString('base64url')}.${signature}`)).toBeNull();
    // A last character whose stray bits base64url decoding would ignore.
    const flipped = signature.slice(0, -1) + (signature.endsWith('A') ? 'B' : 'A');
    expect(verifyTrackingToken(SECRET, 'click', `${payload}.${flipped}`)).toBeNull();
    // An open token is no click token, and the reverse.
    expect(verifyTrackingToken(SECRET, 'open', click)).toBeNull();
    expect(verifyTrackingToken(SECRET, 'click', signTrackingToken(SECRET, { kind: 'open', emailId: EMAIL }))).toBeNull();
  });

  it('refuse malformed tokens and other tokens signed with the same secret', () => {
    for (const bad of ['', '.', 'abc', 'a.b.c', `${'A'.repeat(22)}.${'A'.repeat(22)}`, '../../etc.passwd']) {
      expect(verifyTrackingToken(SECRET, 'open', bad)).toBeNull();
      expect(verifyTrackingToken(SECRET, 'click', bad)).toBeNull();
    }
    const subscription = signSubscriptionToken(SECRET, { projectId: EMAIL, contactId: 'cnt_1' });
    expect(verifyTrackingToken(SECRET, 'open', subscription)).toBeNull();
    expect(verifyTrackingToken(SECRET, 'click', subscription)).toBeNull();
  });

  it('are spelled into URLs under the tracking base', () => {
    expect(openPixelUrl('https://t.example.com', SECRET, EMAIL)).toMatch(/^https:\/\/t\.example\.com\/t\/o\/[\w-]+\.[\w-]+$/);
    expect(clickUrl('https://t.example.com', SECRET, EMAIL, 3)).toMatch(/^https:\/\/t\.example\.com\/t\/c\/[\w-]+\.[\w-]+$/);
  });
});

describe('the signature', () => {
  // Slot s is half of HMAC-SHA256(secret, 'track-v2:' ‖ id ‖ INT32BE(s / 2 + 1)).
  const slot = (secret: string, s: number) => {
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(Math.floor(s / 2) + 1);
    const block = crypto
      .createHmac('sha256', secret)
      .update(Buffer.concat([Buffer.from('track-v2:'), Buffer.from(EMAIL.replace(/-/g, ''), 'hex'), counter]))
      .digest();
    return block.toString('base64url', (s % 2) * 16, (s % 2) * 16 + 16);
  };

  it('is half an HMAC-SHA256 block under the secret: slot 0 the open, slot i + 1 link i', () => {
    for (const secret of [SECRET, 'x'.repeat(64), 'y'.repeat(100)]) {
      expect(signTrackingToken(secret, { kind: 'open', emailId: EMAIL }).split('.')[1]).toBe(slot(secret, 0));
      for (const link of [0, 2, 6]) expect(signTrackingToken(secret, { kind: 'click', emailId: EMAIL, link }).split('.')[1]).toBe(slot(secret, link + 1));
    }
  });

  it('of a link past the first blocks made at once is the same HMAC, and verifies', () => {
    const tokens = emailTokens(SECRET, EMAIL);
    for (const link of [7, 8, 300, 65534]) {
      const token = tokens.click(link);
      expect(token.split('.')[1]).toBe(slot(SECRET, link + 1));
      expect(verifyTrackingToken(SECRET, 'click', token)).toEqual({ kind: 'click', emailId: EMAIL, link });
    }
  });

  it('of the first format (an HMAC per token) still verifies: mail already delivered carries it', () => {
    const id = Buffer.from(EMAIL.replace(/-/g, ''), 'hex');
    const v1 = (kind: string, payload: Buffer) => {
      const p = payload.toString('base64url');
      return `${p}.${crypto.createHmac('sha256', SECRET).update(`track-${kind}:${p}`).digest().subarray(0, 16).toString('base64url')}`;
    };
    const click = v1('click', Buffer.concat([id, Buffer.from([0, 4])]));
    const open = v1('open', id);
    expect(verifyTrackingToken(SECRET, 'click', click)).toEqual({ kind: 'click', emailId: EMAIL, link: 4 });
    expect(verifyTrackingToken(SECRET, 'open', open)).toEqual({ kind: 'open', emailId: EMAIL });
    expect(verifyTrackingToken(SECRET, 'click', open)).toBeNull();
    expect(verifyTrackingToken('another-secret-of-enough-length', 'click', click)).toBeNull();
    const [payload, signature] = click.split('.');
    const other = Buffer.from(payload, 'base64url');
    other.writeUInt16BE(5, 16);
    expect(verifyTrackingToken(SECRET, 'click', `${other.toString('base64url')}.${signature}`)).toBeNull();
  });
});
