import crypto from 'node:crypto';

/**
 * Secrets stored at rest (DKIM private keys) are sealed with AES-256-GCM. The 256-bit key is derived
 * from the configured secret (ENCRYPTION_KEY, else JWT_SECRET) with HKDF, so any string of at least
 * 16 characters works and a key derived for this purpose is never the one that signs cookies.
 *
 * Format: `v1.<iv>.<tag>.<ciphertext>`, base64url parts. The version prefix leaves room for a
 * different algorithm or key later without guessing what a stored value is.
 */

const VERSION = 'v1';
const IV_BYTES = 12;
const HKDF_INFO = 'svc secret box v1';

/** The secret could not be opened: wrong key, tampered value, or not a sealed value at all. */
export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

const deriveKey = (secret: string): Buffer => Buffer.from(crypto.hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), HKDF_INFO, 32));

/**
 * Encrypts `plaintext`. `context` (e.g. the domain a key belongs to) is authenticated but not stored:
 * a sealed value copied to another row does not open there.
 */
export function seal(plaintext: string, secret: string, context = ''): string {
  const iv = crypto.randomBytes(IV_BYTES);
  const cipher = crypto.createCipheriv('aes-256-gcm', deriveKey(secret), iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
}

/** Decrypts what `seal` produced with the same secret and context; throws SecretBoxError otherwise. */
export function open(sealed: string, secret: string, context = ''): string {
  const parts = sealed.split('.');
  if (parts.length !== 4 || parts[0] !== VERSION) throw new SecretBoxError('not a sealed value');
  const [, iv, tag, ciphertext] = parts.map((p) => Buffer.from(p, 'base64url'));
  if (iv.length !== IV_BYTES || tag.length !== 16) throw new SecretBoxError('not a sealed value');
  try {
    const decipher = crypto.createDecipheriv('aes-256-gcm', deriveKey(secret), iv);
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretBoxError('the sealed value does not open with this key (wrong ENCRYPTION_KEY, or tampered)');
  }
}
