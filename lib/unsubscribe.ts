import crypto from 'node:crypto';
import type { Config } from './config';

/**
 * Subscription links carry a signed (projectId, contactId) pair, and the topic when the email was
 * sent as one: its unsubscribe link then leaves that topic only. They never expire: an unsubscribe
 * link in a years-old email must still work, and it can only ever change that one contact's states.
 */
export interface SubscriptionTarget {
  projectId: string;
  contactId: string;
  topicId?: string;
}

// Signed input differs from a JWT's (`header.body`), so neither kind of token can pass for the other.
const PURPOSE = 'subscription:';

const sign = (input: string, secret: string) => crypto.createHmac('sha256', secret).update(input).digest('base64url');

/** Double opt-in confirmation links are signed for their own purpose: a subscription token never confirms, nor the reverse. */
const CONFIRM_PURPOSE = 'confirm:';

export function signSubscriptionToken(secret: string, target: SubscriptionTarget, purpose = PURPOSE): string {
  const pair = target.topicId ? [target.projectId, target.contactId, target.topicId] : [target.projectId, target.contactId];
  const payload = Buffer.from(JSON.stringify(pair)).toString('base64url');
  return `${payload}.${sign(purpose + payload, secret)}`;
}

/** The pair a token was signed for, or null for anything malformed or forged. */
export function verifySubscriptionToken(secret: string, token: string, purpose = PURPOSE): SubscriptionTarget | null {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return null;
  // Compared as text: base64url decoding ignores stray bits, which would let altered tokens pass.
  const given = Buffer.from(signature);
  const expected = Buffer.from(sign(purpose + payload, secret));
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return null;
  try {
    const [projectId, contactId, topicId, extraItem] = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    if (typeof projectId !== 'string' || typeof contactId !== 'string' || extraItem !== undefined) return null;
    if (topicId !== undefined && typeof topicId !== 'string') return null;
    return topicId === undefined ? { projectId, contactId } : { projectId, contactId, topicId };
  } catch {
    return null;
  }
}

export interface SubscriptionLinks {
  unsubscribeUrl: string;
  subscribeUrl: string;
  manageUrl: string;
}

/**
 * The template variables `{{unsubscribeUrl}}`, `{{subscribeUrl}}`, `{{manageUrl}}` for one contact.
 * With a topic (an email sent as that topic), unsubscribe and subscribe act on the topic only;
 * the manage link is always the whole preference center.
 */
export function linksFor(config: Pick<Config, 'appUrl' | 'jwtSecret'>, projectId: string, contactId: string, topicId?: string | null): SubscriptionLinks {
  const token = signSubscriptionToken(config.jwtSecret, { projectId, contactId });
  const scoped = topicId ? signSubscriptionToken(config.jwtSecret, { projectId, contactId, topicId }) : token;
  return {
    unsubscribeUrl: `${config.appUrl}/unsubscribe/${scoped}`,
    subscribeUrl: `${config.appUrl}/subscribe/${scoped}`,
    manageUrl: `${config.appUrl}/manage/${token}`,
  };
}

/** RFC 8058 one-click unsubscribe headers for marketing mail. */
export function listUnsubscribeHeaders(unsubscribeUrl: string): Record<string, string> {
  return { 'List-Unsubscribe': `<${unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
}

/**
 * The one-click unsubscribe pair an outgoing email carries: marketing mail and mail sent as a topic
 * do (for the latter its link leaves that topic only: linksFor), other mail and mail without a
 * contact's link do not. Campaign groups (activities/campaigns.ts) and stored rows
 * (activities/outgoing.ts) both take their headers from here.
 */
export function oneClickHeaders(mail: { type: string; topicId: string | null }, unsubscribeUrl: string | null | undefined): Record<string, string> {
  return (mail.type === 'MARKETING' || !!mail.topicId) && unsubscribeUrl ? listUnsubscribeHeaders(unsubscribeUrl) : {};
}

/** The double opt-in confirmation link of a contact (`{{ confirmUrl }}` in the confirmation email). */
export function confirmUrlFor(config: Pick<Config, 'appUrl' | 'jwtSecret'>, projectId: string, contactId: string): string {
  return `${config.appUrl}/confirm/${signSubscriptionToken(config.jwtSecret, { projectId, contactId }, CONFIRM_PURPOSE)}`;
}

export const verifyConfirmToken = (secret: string, token: string) => verifySubscriptionToken(secret, token, CONFIRM_PURPOSE);
