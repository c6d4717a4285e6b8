import { bounceDomainFor, emailIdOfReturnPath, verifyVerpToken, verpReturnPath, verpToken } from '../../lib/verp';

const SECRET = 'test-secret-test-secret-test-secret';
const EMAIL = '3f2b8c1e-9d4a-4e6b-8a2f-1c2d3e4f5a6b';

describe('VERP return paths', () => {
  it('names the email in a lower-case hex token that fits a local part, with no address in it', () => {
    const path = verpReturnPath(SECRET, EMAIL, 'bounces.example.com');
    expect(path).toMatch(/^bounces\+[0-9a-f]{52}@bounces\.example\.com$/);
    expect(path.split('@')[0].length).toBeLessThanOrEqual(64);
    expect(emailIdOfReturnPath(SECRET, path)).toBe(EMAIL);
  });

  it('survives a server that folds the local part to upper case', () => {
    expect(emailIdOfReturnPath(SECRET, verpReturnPath(SECRET, EMAIL, 'b.example.com').toUpperCase())).toBe(EMAIL);
  });

  it('refuses a forged, altered or foreign token', () => {
    const token = verpToken(SECRET, EMAIL);
    expect(verifyVerpToken('another-secret-another-secret-xx', token)).toBeNull();
    // Another email id with the original MAC: the MAC covers the id.
    const other = `${'0'.repeat(32)}${token.slice(32)}`;
    expect(verifyVerpToken(SECRET, other)).toBeNull();
    const flipped = token.slice(0, -1) + (token.endsWith('0') ? '1' : '0');
    expect(verifyVerpToken(SECRET, flipped)).toBeNull();
    expect(emailIdOfReturnPath(SECRET, `someone+${token}@example.com`)).toBeNull();
    expect(emailIdOfReturnPath(SECRET, 'bounces+@example.com')).toBeNull();
    expect(emailIdOfReturnPath(SECRET, `bounces+${token}x@example.com`)).toBeNull();
  });

  it("uses BOUNCE_DOMAIN when set, else the sender domain's bounces. subdomain", () => {
    expect(bounceDomainFor(undefined, 'hello@Mail.Example.com')).toBe('bounces.mail.example.com');
    expect(bounceDomainFor('rp.example.net', 'hello@mail.example.com')).toBe('rp.example.net');
  });
});
