import crypto from 'node:crypto';
import https from 'node:https';
import tls from 'node:tls';
import { z } from 'zod';
import type { EmailConfig } from '../lib/config';
import { snsUrlAllowed, supportedSignatureVersion, verifySnsSignature } from '../lib/snsSignature';

/**
 * Amazon SNS messages posted to POST /webhooks/ses: their shape, their signature check (the
 * certificate fetched once per URL from an allowed host) and the confirmation of a subscription.
 */

export const SnsMessage = z.object({
  Type: z.enum(['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation']),
  // SNS message ids are UUIDs; the id is stored (provider_events), so nothing unstorable gets through.
  MessageId: z.string().regex(/^[A-Za-z0-9._:-]{1,200}$/, 'must be an SNS message id'),
  TopicArn: z.string().min(1).max(1000),
  Message: z.string().max(300_000),
  Timestamp: z.string().datetime({ offset: true }),
  SignatureVersion: z.string().max(10),
  Signature: z.string().min(1).max(4096),
  SigningCertURL: z.string().min(1).max(2048),
  Subject: z.string().max(1000).nullish(),
  SubscribeURL: z.string().max(4096).optional(),
  Token: z.string().max(4096).optional(),
});
export type SnsMessage = z.infer<typeof SnsMessage>;

/** Why a message was not accepted: `refused` is the sender's fault (4xx), `unavailable` ours or the network's (retry). */
export class SnsError extends Error {
  constructor(
    message: string,
    readonly kind: 'refused' | 'unavailable',
  ) {
    super(message);
  }
}

/**
 * SNS retries a notification for about an hour by default and at most days when configured so;
 * an older signed message is a replay, refused before its id could have been forgotten
 * (provider event ids are kept 7 days).
 */
const MAX_MESSAGE_AGE_MS = 3 * 24 * 3600_000;
const FETCH_TIMEOUT_MS = 10_000;
/** A PEM certificate is a few KB; anything far larger is not one. */
const MAX_CERT_BYTES = 64 * 1024;
/** Certificates kept per configuration; SNS rotates its certificate rarely, so a handful is plenty. */
const MAX_CACHED_CERTS = 32;

interface Fetched {
  status: number;
  body: Buffer;
}

/**
 * One https GET, trusting the extra CA (`SNS_CERT_CA`) on this request only, never process-wide;
 * no redirects are followed (a redirect could leave the allowed hosts).
 */
function httpsGet(url: string, ca: string | undefined, maxBytes: number): Promise<Fetched> {
  return new Promise((resolve, reject) => {
    const req = https.get(url, { timeout: FETCH_TIMEOUT_MS, ...(ca ? { ca: [...tls.rootCertificates, ca], agent: false } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > maxBytes) req.destroy(new Error('response too large'));
        else chunks.push(c);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
  });
}

/**
 * Signing certificates by URL, one cache per process (services/runtime.ts), built with the
 * process's configuration, so it never carries a certificate fetched under another trust setting.
 */
export type SnsCertCache = Map<string, Promise<crypto.X509Certificate>>;

function certificate(config: EmailConfig, cache: SnsCertCache, url: string): Promise<crypto.X509Certificate> {
  const cached = cache.get(url);
  if (cached) return cached;
  const pending = (async () => {
    let res: Fetched;
    try {
      res = await httpsGet(url, config.snsCertCa, MAX_CERT_BYTES);
    } catch (err) {
      throw new SnsError(`the signing certificate could not be fetched: ${(err as Error).message}`, 'unavailable');
    }
    if (res.status !== 200) throw new SnsError(`the signing certificate URL answered ${res.status}`, 'refused');
    try {
      return new crypto.X509Certificate(res.body);
    } catch {
      throw new SnsError('the signing certificate URL did not serve a certificate', 'refused');
    }
  })();
  if (cache.size >= MAX_CACHED_CERTS) cache.delete(cache.keys().next().value!);
  cache.set(url, pending);
  // Only certificates are kept: a failed fetch is tried again by the next message.
  pending.catch(() => cache.delete(url));
  return pending;
}

/**
 * Whether POST /webhooks/ses listens at all: only when mail goes out through SES and the operator
 * named the topics it publishes to. SNS signs every AWS account's topics alike and any account may
 * subscribe its own topic to this URL, so a valid signature alone proves nothing about the sender:
 * without the list, anyone could post bounces and complaints (and suspend a project with them).
 */
export function sesWebhookEnabled(config: EmailConfig): boolean {
  return config.transport === 'ses' && !!config.snsTopicArns?.length;
}

/** Resolves when `m` is signed by SNS (as far as the allowed hosts say); throws SnsError otherwise. */
export async function verifySnsMessage(config: EmailConfig, certs: SnsCertCache, m: SnsMessage, now = new Date()): Promise<void> {
  // Any AWS account's topic gets valid signatures: only the listed topics are ours (no list: none is).
  if (!config.snsTopicArns?.includes(m.TopicArn)) throw new SnsError('the SNS topic is not one of SNS_TOPIC_ARNS', 'refused');
  if (!supportedSignatureVersion(m.SignatureVersion)) throw new SnsError(`unsupported SignatureVersion ${JSON.stringify(m.SignatureVersion)}`, 'refused');
  if (!snsUrlAllowed(m.SigningCertURL, config.snsCertHosts))
    throw new SnsError('the signing certificate URL is not on an allowed host (SNS_CERT_HOSTS)', 'refused');
  const cert = await certificate(config, certs, m.SigningCertURL);
  if (!verifySnsSignature(m, cert, now)) throw new SnsError('invalid SNS message signature', 'refused');
  // After the signature: only a signed Timestamp says anything about the message's age.
  if (now.getTime() - new Date(m.Timestamp).getTime() > MAX_MESSAGE_AGE_MS) throw new SnsError('the SNS message is too old (a replay)', 'refused');
}

/** Confirms a (verified) subscription by visiting its SubscribeURL, which must be on an allowed host too. */
export async function confirmSnsSubscription(config: EmailConfig, m: SnsMessage): Promise<void> {
  if (!m.SubscribeURL || !snsUrlAllowed(m.SubscribeURL, config.snsCertHosts))
    throw new SnsError('the SubscribeURL is not on an allowed host (SNS_CERT_HOSTS)', 'refused');
  let res: Fetched;
  try {
    res = await httpsGet(m.SubscribeURL, config.snsCertCa, MAX_CERT_BYTES);
  } catch (err) {
    throw new SnsError(`the subscription could not be confirmed: ${(err as Error).message}`, 'unavailable');
  }
  if (res.status < 200 || res.status >= 300) throw new SnsError(`confirming the subscription answered ${res.status}`, 'unavailable');
}
