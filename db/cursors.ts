/**
 * Keyset-pagination cursors: opaque base64url JSON arrays of strings that the API hands out and
 * takes back. Decoding refuses anything it did not hand out, so a forged cursor never reaches SQL
 * as a bad cast.
 */

/** A timestamp column as a cursor key; microseconds kept, because a millisecond JS Date would skip or repeat rows. */
export const timeKeySql = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

const TIME_KEY = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** A key timeKeySql produced: the exact shape, and a real instant. */
export const isTimeKey = (key: string) => TIME_KEY.test(key) && !Number.isNaN(Date.parse(`${key.slice(0, 23)}Z`));

export const encodeCursor = (parts: string[]) => Buffer.from(JSON.stringify(parts)).toString('base64url');

/** The cursor's `length` strings, or null for anything else. */
export function decodeCursor(raw: string, length: number): string[] | null {
  try {
    const v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    return Array.isArray(v) && v.length === length && v.every((x) => typeof x === 'string') ? v : null;
  } catch {
    return null;
  }
}
