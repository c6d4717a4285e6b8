import crypto from 'node:crypto';
import type { Config } from './config';

/**
 * Subscription links carry a signed (projectId, contactId) pair. They never expire: an unsubscribe
 * link in a years-old email must still work, and it can only ever change that one contact's flag.
 */
export interface SubscriptionTarget {
  projectId: string;
  contactId: string;
}

// Signed input differs from a JWT's (`header.body`), so neither kind of token can pass for the other.
const PURPOSE = 'subscription:';

const sign = (payload: string, secret: string) => crypto.createHmac('sha256', secret).update(PURPOSE + payload).digest('base64url');

export function signSubscriptionToken(secret: string, target: SubscriptionTarget): string {
  const payload = Buffer.from(JSON.stringify([target.projectId, target.contactId])).toString('base64url');
  return `${payload}.${sign(payload, secret)}`;
}

/** The pair a token was signed for, or null for anything malformed or forged. */
export function verifySubscriptionToken(secret: string, token: string): SubscriptionTarget | null {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return null;
  // Compared as text: base64url decoding ignores stray bits, which would let altered tokens pass.
  const given = Buffer.from(signature);
  const expected = Buffer.from(sign(payload, secret));
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return null;
  try {
    const [projectId, contactId] = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    if (typeof projectId !== 'string' || typeof contactId !== 'string') return null;
    return { projectId, contactId };
  } catch {
    return null;
  }
}

export interface SubscriptionLinks {
  unsubscribeUrl: string;
  subscribeUrl: string;
  manageUrl: string;
}

/** The template variables `{{unsubscribeUrl}}`, `{{subscribeUrl}}`, `{{manageUrl}}` for one contact. */
export function linksFor(config: Pick<Config, 'appUrl' | 'jwtSecret'>, projectId: string, contactId: string): SubscriptionLinks {
  const token = signSubscriptionToken(config.jwtSecret, { projectId, contactId });
  return {
    unsubscribeUrl: `${config.appUrl}/unsubscribe/${token}`,
    subscribeUrl: `${config.appUrl}/subscribe/${token}`,
    manageUrl: `${config.appUrl}/manage/${token}`,
  };
}

/** RFC 8058 one-click unsubscribe headers for marketing mail. */
export function listUnsubscribeHeaders(unsubscribeUrl: string): Record<string, string> {
  return { 'List-Unsubscribe': `<${unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
}
