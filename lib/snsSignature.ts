import crypto from 'node:crypto';

/**
 * Amazon SNS message signatures, per AWS's "Verifying the signatures of Amazon SNS messages":
 * the signature covers a canonical string of some of the message's fields (which ones depends on
 * the message type), signed with the key of the X.509 certificate at `SigningCertURL`.
 * Pure: fetching the certificate is services/snsMessages' job.
 */

/** The fields an SNS message carries that the signature and its checks read. */
export interface SnsSignedFields {
  Type: string;
  MessageId: string;
  Message: string;
  Timestamp: string;
  TopicArn: string;
  Subject?: string | null;
  SubscribeURL?: string;
  Token?: string;
  SignatureVersion: string;
  Signature: string;
}

/** The signed keys per message type, in the order they are concatenated (alphabetical, as AWS lists them). */
const SIGNED_KEYS: Record<string, ReadonlyArray<keyof SnsSignedFields>> = {
  Notification: ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'],
  SubscriptionConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
  UnsubscribeConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
};

/** SignatureVersion 1 is SHA1withRSA, 2 is SHA256withRSA. */
const DIGESTS: Record<string, string> = { '1': 'sha1', '2': 'sha256' };

/**
 * "Key\nValue\n" for each signed key in order; a notification's Subject only when it has one.
 * Null when the type is unknown or a required key is missing (such a message cannot be verified).
 */
export function snsStringToSign(m: SnsSignedFields): string | null {
  const keys = Object.hasOwn(SIGNED_KEYS, m.Type) ? SIGNED_KEYS[m.Type] : undefined;
  if (!keys) return null;
  let out = '';
  for (const key of keys) {
    const value = m[key];
    if (value === undefined || value === null) {
      if (key === 'Subject') continue;
      return null;
    }
    out += `${key}\n${value}\n`;
  }
  return out;
}

export const supportedSignatureVersion = (v: string): boolean => Object.hasOwn(DIGESTS, v);

/**
 * True when `m` is signed by the certificate's key and the certificate is within its validity
 * period at `now`. Anything malformed (unknown version, bad base64, not a certificate) is false.
 */
export function verifySnsSignature(m: SnsSignedFields, cert: crypto.X509Certificate, now = new Date()): boolean {
  const digest = supportedSignatureVersion(m.SignatureVersion) ? DIGESTS[m.SignatureVersion] : undefined;
  const data = snsStringToSign(m);
  if (!digest || data === null) return false;
  if (now < new Date(cert.validFrom) || now > new Date(cert.validTo)) return false;
  try {
    return crypto.verify(digest, Buffer.from(data, 'utf8'), cert.publicKey, Buffer.from(m.Signature, 'base64'));
  } catch {
    return false;
  }
}

/** AWS's own SNS endpoints, the hosts its signing certificates are served from (as AWS's SDK validators check). */
const AWS_SNS_HOST = /^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/;

/**
 * Whether `url` may be fetched for SNS: https only, no credentials, and a host either AWS's
 * (`hosts` unset) or in `hosts`, where an entry with a port must match host and port and an entry
 * without one allows only https's default port.
 */
export function snsUrlAllowed(url: string, hosts?: string[]): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.protocol !== 'https:' || u.username || u.password) return false;
  if (!hosts) return u.port === '' && AWS_SNS_HOST.test(u.hostname);
  return hosts.some((entry) => {
    const h = entry.toLowerCase();
    return /:\d+$/.test(h) ? h === u.host : u.port === '' && h === u.hostname;
  });
}
