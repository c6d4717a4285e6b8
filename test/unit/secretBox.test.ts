import { open, seal, SecretBoxError } from '../../lib/secretBox';

const KEY = 'an encryption key of some length';

describe('secret box (AES-256-GCM)', () => {
  it('opens what it sealed with the same key and context', () => {
    const sealed = seal('-----BEGIN PRIVATE KEY-----\nabc\n', KEY, 'example.com');
    expect(sealed).not.toContain('PRIVATE');
    expect(open(sealed, KEY, 'example.com')).toBe('-----BEGIN PRIVATE KEY-----\nabc\n');
  });

  it('seals the same text differently each time (fresh IV)', () => {
    expect(seal('same', KEY)).not.toBe(seal('same', KEY));
  });

  it('refuses a wrong key', () => {
    const sealed = seal('secret', KEY);
    expect(() => open(sealed, 'another key, also long enough')).toThrow(SecretBoxError);
  });

  it('refuses another context (a value copied to another row)', () => {
    const sealed = seal('secret', KEY, 'a.example');
    expect(() => open(sealed, KEY, 'b.example')).toThrow(SecretBoxError);
  });

  it('refuses a tampered ciphertext or tag, and garbage', () => {
    const [v, iv, tag, ct] = seal('secret value', KEY).split('.');
    const flip = (s: string) => {
      const b = Buffer.from(s, 'base64url');
      b[0] ^= 1;
      return b.toString('base64url');
    };
    expect(() => open([v, iv, tag, flip(ct)].join('.'), KEY)).toThrow(SecretBoxError);
    expect(() => open([v, iv, flip(tag), ct].join('.'), KEY)).toThrow(SecretBoxError);
    expect(() => open('plain text', KEY)).toThrow(SecretBoxError);
    expect(() => open(`v2.${iv}.${tag}.${ct}`, KEY)).toThrow(SecretBoxError);
  });
});
