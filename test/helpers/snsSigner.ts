import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';

/**
 * Plays Amazon SNS for POST /webhooks/ses: signs messages with an RSA key whose self-signed X.509
 * certificate it serves over https on 127.0.0.1 (node:crypto cannot make certificates, so
 * `openssl` does), and answers SubscribeURLs. The https server's own certificate is another
 * self-signed one, `ca`, which the app trusts through SNS_CERT_CA (for its SNS fetches only).
 * The string to sign is built here from AWS's documented key lists, not with the code under test.
 */

export interface Keypair {
  key: string;
  cert: string;
}

/** An RSA key and a self-signed certificate for it (IP SAN 127.0.0.1, valid for two days from now). */
export function selfSigned(cn: string): Keypair {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sns-'));
  try {
    const keyFile = path.join(dir, 'key.pem');
    const certFile = path.join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        keyFile,
        '-out',
        certFile,
        '-days',
        '2',
        '-subj',
        `/CN=${cn}`,
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'pipe' },
    );
    return { key: fs.readFileSync(keyFile, 'utf8'), cert: fs.readFileSync(certFile, 'utf8') };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const NOTIFICATION = ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'];
const CONFIRMATION = ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];

export type SnsEnvelope = Record<string, string | undefined>;

/** AWS's recipe: "Key\nValue\n" for each listed key present, in that order; SHA1withRSA (v1) or SHA256withRSA (v2). */
export function signSns(m: SnsEnvelope, key: string, version: '1' | '2' = '2'): SnsEnvelope {
  const keys = m.Type === 'Notification' ? NOTIFICATION : CONFIRMATION;
  const text = keys
    .filter((k) => m[k] !== undefined)
    .map((k) => `${k}\n${m[k]}\n`)
    .join('');
  const Signature = crypto.sign(version === '1' ? 'sha1' : 'sha256', Buffer.from(text), key).toString('base64');
  return { ...m, SignatureVersion: version, Signature };
}

export interface SnsSigner {
  /** For SNS_CERT_HOSTS: the server's host:port. */
  host: string;
  /** For SNS_CERT_CA: the certificate of the https server. */
  ca: string;
  /** Where the signing certificate is served. */
  certUrl: string;
  signing: Keypair;
  topicArn: string;
  /** How often the signing certificate was fetched. */
  certFetches(): number;
  /** Tokens whose SubscribeURL was visited. */
  confirmed: string[];
  notification(
    message: unknown,
    opts?: { messageId?: string; subject?: string; timestamp?: string; version?: '1' | '2'; certUrl?: string; key?: string; topicArn?: string },
  ): SnsEnvelope;
  subscriptionConfirmation(opts?: { token?: string; subscribeUrl?: string; type?: 'SubscriptionConfirmation' | 'UnsubscribeConfirmation' }): SnsEnvelope;
  stop(): Promise<void>;
}

export async function startSnsSigner(): Promise<SnsSigner> {
  const tlsPair = selfSigned('sns-test-server');
  const signing = selfSigned('sns.test.amazonaws.com');
  let fetches = 0;
  const confirmed: string[] = [];
  const server = https.createServer({ key: tlsPair.key, cert: tlsPair.cert }, (req, res) => {
    const url = new URL(req.url ?? '/', 'https://127.0.0.1');
    if (url.pathname === '/SimpleNotificationService-test.pem') {
      fetches++;
      res.writeHead(200, { 'Content-Type': 'application/x-pem-file' }).end(signing.cert);
    } else if (url.pathname === '/' && url.searchParams.get('Action') === 'ConfirmSubscription') {
      confirmed.push(url.searchParams.get('Token') ?? '');
      res.writeHead(200, { 'Content-Type': 'text/xml' }).end('<ConfirmSubscriptionResponse/>');
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const certUrl = `https://${host}/SimpleNotificationService-test.pem`;
  const topicArn = 'arn:aws:sns:us-east-1:123456789012:ses-events';
  return {
    host,
    ca: tlsPair.cert,
    certUrl,
    signing,
    topicArn,
    certFetches: () => fetches,
    confirmed,
    notification(message, opts = {}) {
      return signSns(
        {
          Type: 'Notification',
          MessageId: opts.messageId ?? crypto.randomUUID(),
          TopicArn: opts.topicArn ?? topicArn,
          ...(opts.subject !== undefined ? { Subject: opts.subject } : {}),
          Message: typeof message === 'string' ? message : JSON.stringify(message),
          Timestamp: opts.timestamp ?? new Date().toISOString(),
          SigningCertURL: opts.certUrl ?? certUrl,
          UnsubscribeURL: `https://${host}/?Action=Unsubscribe`,
        },
        opts.key ?? signing.key,
        opts.version,
      );
    },
    subscriptionConfirmation(opts = {}) {
      const token = opts.token ?? crypto.randomBytes(16).toString('hex');
      return signSns(
        {
          Type: opts.type ?? 'SubscriptionConfirmation',
          MessageId: crypto.randomUUID(),
          Token: token,
          TopicArn: topicArn,
          Message: `You have chosen to subscribe to the topic ${topicArn}.`,
          SubscribeURL: opts.subscribeUrl ?? `https://${host}/?Action=ConfirmSubscription&TopicArn=${encodeURIComponent(topicArn)}&Token=${token}`,
          Timestamp: new Date().toISOString(),
          SigningCertURL: certUrl,
        },
        signing.key,
      );
    },
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
