import crypto from 'node:crypto';

/** Secrets (API keys, one-time tokens) are stored only as this digest. */
export const sha256Hex = (value: string): string => crypto.createHash('sha256').update(value).digest('hex');
