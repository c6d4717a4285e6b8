import { startHarness, Harness } from '../helpers/harness';
import { prepared } from '../../db/prepared';

/**
 * db/prepared.ts sends a statement outside a transaction straight to a pooled pg client, with its
 * `?` placeholders made `$n` once; these are the rules that path must keep from knex's.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.stop());

describe('prepared', () => {
  it('answers what knex answers for the same statement and bindings (dates, arrays, JSON as bindings)', async () => {
    const sql = 'SELECT ?::int + 1 AS n, ?::timestamptz AS at, ?::text[] AS list, ?::jsonb AS doc';
    const at = new Date('2026-11-27T10:00:00Z');
    const bindings = [41, at, ['a', 'b'], JSON.stringify({ k: [1] })];
    const direct = await prepared(h.deps.knex, sql, bindings);
    const viaKnex = await h.deps.knex.raw(sql, bindings);
    expect(direct.rows).toEqual(viaKnex.rows);
    expect(direct.rows[0]).toEqual({ n: 42, at, list: ['a', 'b'], doc: { k: [1] } });
  });

  it('refuses an undefined binding, as knex does, rather than sending it as NULL', async () => {
    await expect(prepared(h.deps.knex, 'SELECT ?::int AS n', [undefined as never])).rejects.toThrow(/Undefined binding/);
  });

  it('runs on the transaction it is given: its writes are seen inside and rolled back with it', async () => {
    const name = `prepared-${Date.now()}`;
    await h.deps.knex
      .transaction(async (trx) => {
        await trx.raw('CREATE TEMP TABLE prepared_probe (name text) ON COMMIT DROP');
        await prepared(trx, 'INSERT INTO prepared_probe (name) VALUES (?)', [name]);
        expect((await prepared(trx, 'SELECT count(*)::int AS n FROM prepared_probe WHERE name = ?', [name])).rows).toEqual([{ n: 1 }]);
        throw new Error('roll back');
      })
      .catch((err) => expect(err.message).toBe('roll back'));
  });

  it('leaves a statement with knex identifiers (??) to knex', async () => {
    const { rows } = await prepared(h.deps.knex, 'SELECT ?? FROM (SELECT 7 AS seven) t', ['seven']);
    expect(rows).toEqual([{ seven: 7 }]);
  });
});
