import crypto from 'node:crypto';
import { signTrackingToken, verifyTrackingToken, openPixelUrl, clickUrl } from '../../services/trackingTokens';
import { signSubscriptionToken } from '../../lib/unsubscribe';

const SECRET = 'a-test-secret-of-enough-length';
const EMAIL = '0b9f6c3e-1d2a-4c5b-8e7f-9a0b1c2d3e4f';

describe('tracking tokens', () => {
  it('carry the email id and the link index, and nothing else', () => {
    const open = signTrackingToken(SECRET, { kind: 'open', emailId: EMAIL });
    const click = signTrackingToken(SECRET, { kind: 'click', emailId: EMAIL, link: 7 });
    expect(verifyTrackingToken(SECRET, 'open', open)).toEqual({ kind: 'open', emailId: EMAIL });
    expect(verifyTrackingToken(SECRET, 'click', click)).toEqual({ kind: 'click', emailId: EMAIL, link: 7 });
    // 16 bytes of id (+2 of index) and 16 of signature: no address, no URL fits in there.
    expect(Buffer.from(click.split('.')[0], 'base64url')).toHaveLength(18);
    expect(click.length).toBeLessThan(60);
  });

  it('refuse another secret, an altered payload or signature, and the other kind', () => {
    const click = signTrackingToken(SECRET, { kind: 'click', emailId: EMAIL, link: 0 });
    const [payload, signature] = click.split('.');
    expect(verifyTrackingToken('another-secret-of-enough-length', 'click', click)).toBeNull();
    // Another link of the same email: the index is signed.
    const other = Buffer.from(payload, 'base64url');
    other.writeUInt16BE(1, 16);
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
  it('is HMAC-SHA256 as node computes it, truncated to 128 bits, for short and long secrets', () => {
    for (const secret of [SECRET, 'x'.repeat(64), 'y'.repeat(100)]) {
      const token = signTrackingToken(secret, { kind: 'click', emailId: EMAIL, link: 2 });
      const [payload, signature] = token.split('.');
      const expected = crypto.createHmac('sha256', secret).update(`track-click:${payload}`).digest().subarray(0, 16).toString('base64url');
      expect(signature).toBe(expected);
    }
  });
});
