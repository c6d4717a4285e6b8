import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { HOTP, Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import type { Config } from '../lib/config';
import { DomainError } from '../lib/domainErrors';
import { sha256Hex } from '../lib/hash';
import { open, seal } from '../lib/secretBox';
import { claimStep, disableTwoFactor, enableTwoFactor, findTwoFactor, replaceRecoveryCodes, savePendingSecret, spendRecoveryCode } from '../db/twoFactor';

/**
 * TOTP (RFC 6238: SHA-1, 6 digits, 30-second steps — what every authenticator app reads from a QR
 * code) and one-time recovery codes for dashboard accounts (docs/security.md "Two-factor
 * authentication"). A code is accepted for the current time step and the one either side (clock
 * drift, a code typed as it turns over), and each step at most once: the step of every accepted
 * code is stored, and only a later one passes.
 */

type Deps = { knex: Knex; config: Pick<Config, 'email' | 'appUrl'> };

const ISSUER = 'svc-mail';
const PERIOD = 30;
const DIGITS = 6;
/** Steps either side of the current one that are accepted. */
const WINDOW = 1;
export const RECOVERY_CODE_COUNT = 10;

/** The sealed secret is bound to its user: a value copied to another user's row does not open. */
const sealContext = (userId: string) => `totp:${userId}`;

/**
 * The time step `code` belongs to (current ± WINDOW), or null. Every candidate is compared in
 * constant time, whichever matched.
 */
export function matchingStep(secretBase32: string, code: string, now = Date.now()): number | null {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return null;
  const secret = Secret.fromBase32(secretBase32);
  const current = TOTP.counter({ period: PERIOD, timestamp: now });
  let found: number | null = null;
  for (let step = current - WINDOW; step <= current + WINDOW; step++) {
    const expected = HOTP.generate({ secret, counter: step, digits: DIGITS });
    if (crypto.timingSafeEqual(Buffer.from(expected), Buffer.from(token))) found = step;
  }
  return found;
}

/** `xxxx-xxxx-xxxx-xxxx` in lowercase base32: 80 random bits, so sha256 is enough to store them. */
function newRecoveryCode(): string {
  const chars = new Secret({ size: 10 }).base32.toLowerCase();
  return chars.match(/.{4}/g)!.join('-');
}

/** Case, spaces and dashes do not matter when a code is typed back. */
export const recoveryCodeHash = (code: string) => sha256Hex(code.toLowerCase().replace(/[\s-]+/g, ''));

function freshRecoveryCodes(): { codes: string[]; hashes: string[] } {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  return { codes, hashes: codes.map(recoveryCodeHash) };
}

const openSecret = (d: Deps, userId: string, sealed: string) => open(sealed, d.config.email.encryptionKey, sealContext(userId));

const wrongCode = (factor: SecondFactor = { code: '' }) =>
  'recoveryCode' in factor
    ? new DomainError('invalid', 'The recovery code is wrong or was already used', { field: 'recoveryCode' })
    : new DomainError('invalid', 'The authentication code is wrong or was already used', { field: 'code' });

/**
 * Begins (or restarts) enrolment: a new secret, as text, as an otpauth:// URI, and as a QR code (a
 * PNG data: URL, rendered here so the dashboard needs no QR library). Nothing changes for sign-in
 * until `confirmEnrolment` accepts a first code.
 */
export async function beginEnrolment(d: Deps, user: { id: string; email: string }) {
  const secret = new Secret({ size: 20 });
  const totp = new TOTP({ issuer: ISSUER, label: user.email, secret, period: PERIOD, digits: DIGITS });
  const saved = await savePendingSecret(d.knex, user.id, seal(secret.base32, d.config.email.encryptionKey, sealContext(user.id)));
  if (!saved) throw new DomainError('conflict', 'Two-factor authentication is already enabled; disable it first to enrol a new authenticator');
  const otpauthUrl = totp.toString();
  return { secret: secret.base32, otpauthUrl, qrCode: await QRCode.toDataURL(otpauthUrl, { margin: 1, width: 240 }) };
}

/** Confirms enrolment with the first code from the app; answers the recovery codes, shown this once. */
export async function confirmEnrolment(d: Deps, userId: string, code: string): Promise<string[]> {
  const row = await findTwoFactor(d.knex, userId);
  if (!row) throw new DomainError('conflict', 'Start the enrolment first: no authenticator is being set up');
  if (row.enabled_at) throw new DomainError('conflict', 'Two-factor authentication is already enabled');
  const step = matchingStep(openSecret(d, userId, row.secret), code);
  const { codes, hashes } = freshRecoveryCodes();
  if (step === null || !(await enableTwoFactor(d.knex, userId, step, hashes))) throw wrongCode();
  return codes;
}

export type SecondFactor = { code: string } | { recoveryCode: string };

/**
 * Checks a second factor of a user with 2FA enabled, spending it: a TOTP code's step, or a recovery
 * code. False for a wrong, replayed or spent one (and for a user without 2FA).
 */
export async function spendSecondFactor(d: Deps, userId: string, factor: SecondFactor): Promise<boolean> {
  if ('recoveryCode' in factor) return spendRecoveryCode(d.knex, userId, recoveryCodeHash(factor.recoveryCode));
  const row = await findTwoFactor(d.knex, userId);
  if (!row?.enabled_at) return false;
  const step = matchingStep(openSecret(d, userId, row.secret), factor.code);
  return step !== null && claimStep(d.knex, userId, step);
}

/** Turns 2FA off after a valid second factor. */
export async function disable(d: Deps, userId: string, factor: SecondFactor): Promise<void> {
  if (!(await spendSecondFactor(d, userId, factor))) throw wrongCode(factor);
  await disableTwoFactor(d.knex, userId);
}

/** New recovery codes after a valid second factor; the old ones stop working. */
export async function regenerateRecoveryCodes(d: Deps, userId: string, factor: SecondFactor): Promise<string[]> {
  if (!(await spendSecondFactor(d, userId, factor))) throw wrongCode(factor);
  const { codes, hashes } = freshRecoveryCodes();
  await replaceRecoveryCodes(d.knex, userId, hashes);
  return codes;
}
