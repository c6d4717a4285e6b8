import crypto from 'node:crypto';
import { promisify } from 'node:util';
import { Semaphore } from './concurrency';

const scrypt = promisify(crypto.scrypt) as (pw: string, salt: Buffer, len: number, opts: crypto.ScryptOptions) => Promise<Buffer>;
// scrypt is memory-hard (N=2^15, r=8 → 32 MiB per hash).
const PARAMS = { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEYLEN = 32;

/**
 * Hashes running at once in this process. Each one holds a libuv pool thread (4 by default, shared
 * with DNS lookups and file I/O) and 32 MiB for about 100 ms: a flood of sign-ins must queue here,
 * not take every thread and starve the rest of the API.
 */
export const HASH_CONCURRENCY = 2;
export const hashSlots = new Semaphore(HASH_CONCURRENCY);

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const hash = await hashSlots.run(() => scrypt(password, salt, KEYLEN, PARAMS));
  return `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [alg, n, r, p, salt, hash] = stored.split('$');
  if (alg !== 'scrypt' || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await hashSlots.run(() =>
    scrypt(password, Buffer.from(salt, 'base64'), expected.length, {
      N: Number(n),
      r: Number(r),
      p: Number(p),
      maxmem: PARAMS.maxmem,
    }),
  );
  return crypto.timingSafeEqual(actual, expected);
}

/** Spent on unknown emails too, so login timing does not reveal which emails exist. */
export const DUMMY_HASH = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

/**
 * A stored hash no password matches, for accounts made by single sign-on: the right shape, so a
 * password sign-in against it costs the full scrypt (no timing tells such accounts apart), with a
 * random salt and a random digest that nobody can find a preimage of. "Forgot your password?" sets a real one.
 */
export function unusablePasswordHash(): string {
  return `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${crypto.randomBytes(16).toString('base64')}$${crypto.randomBytes(KEYLEN).toString('base64')}`;
}
