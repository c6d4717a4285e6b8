import crypto from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Random bytes taken from a pooled buffer refilled 4 KB at a time (as Node's own randomUUID does):
 * one kernel call per id cost about 7 µs, a sixth of an import worker's time per contact.
 */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;
function randomByte(): number {
  if (poolAt === pool.length) {
    crypto.randomFillSync(pool);
    poolAt = 0;
  }
  return pool[poolAt++];
}

/** Base62 of `bytes` random bytes; rejection sampling keeps the distribution uniform. */
export function randomBase62(bytes: number): string {
  const length = Math.ceil((bytes * 8) / Math.log2(62));
  let out = '';
  while (out.length < length) {
    const b = randomByte();
    if (b < 248) out += ALPHABET[b % 62];
  }
  return out;
}

export const uuid = (): string => crypto.randomUUID();

/** Milliseconds since 1970 in base36, zero-padded to 9 characters (enough until the year 5138). */
const timePrefix = (ms: number): string => ms.toString(36).padStart(9, '0');

/**
 * `cnt_` + a 9-character time prefix + 13 random base62 characters (77 bits). Ids grow with
 * creation time, so walking a project's contacts in id order (segment computes, campaign
 * snapshots, imports) reads the table roughly in the order it was written instead of one random
 * page per contact, which is what keeps those walks linear once a project outgrows Postgres'
 * buffer cache. The prefix uses digits and lowercase letters only, which sort alike in the C
 * collation and in the usual language collations.
 */
export function contactId(now = Date.now()): string {
  return `cnt_${timePrefix(now)}${randomBase62(10).slice(0, 13)}`;
}

/** A stable UUID-shaped id derived from its parts: retried activities insert the same row, not a second. */
export function deterministicUuid(...parts: string[]): string {
  const h = crypto.createHash('sha256').update(parts.join('\u0000')).digest('hex');
  // Version 8 (custom) and RFC 4122 variant bits, so Postgres' uuid type and validators accept it.
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h[16], 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * SQL computing deterministicUuid of the given text expressions, for writers that derive ids
 * set-based in one statement: the same sha256 of the parts joined by NUL, the same version and
 * variant bits, so ids derived in SQL and in Node agree.
 */
export function deterministicUuidSql(parts: string[]): string {
  return `(SELECT ${uuidOfDigestSql('d.digest')} FROM (SELECT sha256(${deterministicBytesSql(parts)}) AS digest) d)`;
}

/** SQL of the bytes deterministicUuid hashes: the UTF-8 of the given text expressions joined by NUL. */
export function deterministicBytesSql(parts: string[]): string {
  return parts.map((p) => `convert_to(${p}, 'UTF8')`).join(` || '\\x00'::bytea || `);
}

/**
 * SQL turning `digest` (a sha256 bytea of deterministicBytesSql, a column or a cheap expression:
 * it is read three times) into deterministicUuid's UUID: its first 16 bytes with the version nibble
 * set to 8 and the variant bits to 10, cast from hex. Byte arithmetic, no text slicing: the hex
 * slicing and bit-string casts it replaced cost a set-based writer (db/segmentCompute.ts) about
 * 85 µs per id on a loaded 2-core machine, this about 15 µs with its sha256 (docs/benchmarks.md).
 */
export function uuidOfDigestSql(digest: string): string {
  return `encode(set_byte(set_byte(substring(${digest} FROM 1 FOR 16), 6, (get_byte(${digest}, 6) & 15) | 128), 8, (get_byte(${digest}, 8) & 63) | 128), 'hex')::uuid`;
}
