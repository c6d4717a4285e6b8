import crypto from 'node:crypto';

/** A verification key as providers hand it out: PEM, or the bare base64 of its DER (SPKI) bytes. Throws when neither parses. */
export function parsePublicKey(text: string): crypto.KeyObject {
  return text.includes('BEGIN PUBLIC KEY')
    ? crypto.createPublicKey(text)
    : crypto.createPublicKey({ key: Buffer.from(text, 'base64'), format: 'der', type: 'spki' });
}
