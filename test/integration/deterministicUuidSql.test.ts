import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { createKnex } from '../../db/knex';
import { deterministicBytesSql, deterministicUuid, deterministicUuidSql, uuidOfDigestSql } from '../../lib/ids';

/**
 * lib/ids' SQL forms of deterministicUuid (set-based writers derive ids in SQL, db/segmentCompute.ts)
 * give exactly Node's ids: the byte arithmetic on the digest sets the same version and variant bits
 * as Node's hex slicing, for every value of the bytes they overwrite, and the parts are joined and
 * encoded alike (non-ASCII text, empty parts).
 */
let knex: Knex;

beforeAll(() => {
  knex = createKnex(process.env.DATABASE_URL!, { max: 1 });
});
afterAll(() => knex?.destroy());

const randomText = () =>
  [crypto.randomUUID(), `cnt_${crypto.randomBytes(6).toString('base64url')}`, '', 'Zoë – 東京 🚀', crypto.randomBytes(3).toString('hex')][crypto.randomInt(5)];

describe('deterministicUuid in SQL', () => {
  it('matches Node for 2,000 random part lists, by both SQL forms', async () => {
    const lists = Array.from({ length: 2000 }, () => Array.from({ length: 1 + crypto.randomInt(5) }, randomText));
    const expected = lists.map((parts) => deterministicUuid(...parts));
    // Every value of the two bytes whose bits are overwritten shows up among 2,000 digests' nibbles.
    expect(new Set(expected.map((id) => id[19])).size).toBe(4);
    for (const parts of lists.slice(0, 200)) {
      const args = parts.map(() => '?::text');
      const { rows } = await knex.raw(
        `SELECT ${deterministicUuidSql(args)}::text AS a, (SELECT ${uuidOfDigestSql('d')} FROM (SELECT sha256(${deterministicBytesSql(args)}) AS d) x)::text AS b`,
        [...parts, ...parts],
      );
      expect(rows[0]).toEqual({ a: deterministicUuid(...parts), b: deterministicUuid(...parts) });
    }
    // 2,000 at once, set-based, as a writer derives them (here of three parts each).
    const triples = Array.from({ length: 2000 }, () => [randomText(), randomText(), randomText()]);
    const { rows } = await knex.raw(
      `SELECT ${uuidOfDigestSql('p.digest')}::text AS id
         FROM (SELECT i, sha256(${deterministicBytesSql(['x.a', 'x.b', 'x.c'])}) AS digest
                 FROM unnest(?::text[], ?::text[], ?::text[]) WITH ORDINALITY AS x(a, b, c, i)) p ORDER BY i`,
      [0, 1, 2].map((k) => triples.map((t) => t[k])),
    );
    expect(rows.map((r: { id: string }) => r.id)).toEqual(triples.map((t) => deterministicUuid(...t)));
  });
});
