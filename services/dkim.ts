import crypto from 'node:crypto';
import { promisify } from 'node:util';
import type { Knex } from 'knex';
import type { Config } from '../lib/config';
import { open, seal } from '../lib/secretBox';
import { NewDkimKey, senderDkimKey } from '../db/domains';

/**
 * DKIM for the mail the service hands to an SMTP server itself (docs/providers.md, "SMTP"): each
 * sender domain gets an RSA key pair when it is added; the public half is a DNS record the owner
 * publishes, the private half is stored sealed and signs every message from the domain.
 */

const generateKeyPair = promisify(crypto.generateKeyPair);

/** 2048 bits: what receivers expect today (1024 is deprecated, larger keys outgrow some DNS UIs). */
const MODULUS_BITS = 2048;

/** Whether mail leaves through a transport the service signs itself (the providers sign their own). */
export const signsMail = (config: Pick<Config, 'email'>): boolean => config.email.transport === 'smtp';

/** The sealed value is bound to its domain, so a key row copied to another domain does not open. */
const sealContext = (domain: string) => `dkim:${domain}`;

/** A fresh key pair for `domain` under the configured selector; the private key sealed with ENCRYPTION_KEY. */
export async function generateDkimKey(config: Pick<Config, 'email'>, domain: string): Promise<NewDkimKey> {
  const { publicKey, privateKey } = await generateKeyPair('rsa', {
    modulusLength: MODULUS_BITS,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return {
    selector: config.email.dkimSelector,
    publicKey: publicKey.toString('base64'),
    privateKeySealed: seal(privateKey, config.email.encryptionKey, sealContext(domain)),
  };
}

/** nodemailer's per-message `dkim` option. */
export interface DkimSigning {
  domainName: string;
  keySelector: string;
  privateKey: string;
}

export type DkimKeyLookup = (projectId: string, fromAddress: string) => Promise<DkimSigning | null>;

/** Keys change only when a domain is added or removed; a short cache spares a query and a decryption per message. */
const CACHE_MS = 60_000;
const CACHE_MAX = 1_000;

/**
 * The signing key for a sender, from the project's verified domains (db/domains `senderDkimKey`),
 * cached per worker for a minute. Null when no domain of the sender has a key (mail goes unsigned).
 */
export function dkimKeyLookup(knex: Knex, config: Pick<Config, 'email'>): DkimKeyLookup {
  const cache = new Map<string, { at: number; value: Promise<DkimSigning | null> }>();
  return (projectId, fromAddress) => {
    if (!projectId) return Promise.resolve(null);
    const senderDomain = fromAddress.slice(fromAddress.lastIndexOf('@') + 1).toLowerCase();
    const key = `${projectId} ${senderDomain}`;
    const hit = cache.get(key);
    if (hit && Date.now() - hit.at < CACHE_MS) return hit.value;
    if (cache.size >= CACHE_MAX) cache.clear();
    const value = senderDkimKey(knex, projectId, fromAddress).then((row) =>
      row
        ? { domainName: row.domain, keySelector: row.selector, privateKey: open(row.privateKeySealed, config.email.encryptionKey, sealContext(row.domain)) }
        : null,
    );
    // A failed lookup is not remembered: the next message asks again.
    value.catch(() => cache.delete(key));
    cache.set(key, { at: Date.now(), value });
    return value;
  };
}
