import crypto from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** `whsec_` + base64 of 32 random bytes: the secret format Standard Webhooks libraries take. */
export function generateWebhookSecret(): string {
  return `whsec_${crypto.randomBytes(32).toString('base64')}`;
}

/** The Standard Webhooks `webhook-id` of a delivery: stable across its retries. */
export const messageIdOf = (deliveryId: string) => `msg_${deliveryId.replace(/-/g, '')}`;

/**
 * The three Standard Webhooks headers of one attempt. Each secret signs (`v1,<base64>`), space
 * separated, so a receiver holding either the old or the new secret verifies during a rotation.
 */
export function signatureHeaders(messageId: string, body: string, secrets: string[], at = new Date()): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000);
  const signatures = secrets.map((secret) => new Webhook(secret).sign(messageId, new Date(timestamp * 1000), body));
  return { 'webhook-id': messageId, 'webhook-timestamp': String(timestamp), 'webhook-signature': signatures.join(' ') };
}
