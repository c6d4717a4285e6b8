import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { noteStatement } from './writeScope';

interface Statement {
  name: string;
  /** The text with `$1…$n` placeholders, or null when it needs knex's own formatting (`??`, `\?`). */
  positional: string | null;
}

const statements = new Map<string, Statement>();

function statementOf(sql: string): Statement {
  let s = statements.get(sql);
  if (!s) {
    let n = 0;
    s = {
      name: `svc_${crypto.createHash('sha1').update(sql).digest('hex').slice(0, 20)}`,
      positional: /\?\?|\\\?/.test(sql) ? null : sql.replace(/\?/g, () => `$${++n}`),
    };
    statements.set(sql, s);
  }
  return s;
}

/** The pg client a pool hands out: only what a prepared query needs of it. */
interface PgClient {
  query(config: { name: string; text: string; values: readonly unknown[] }): Promise<{ rows: any[] }>;
}

/**
 * `db.raw(sql, bindings)` as a named prepared statement: Postgres parses and plans it once per
 * connection instead of on every call, which matters for the per-request statements of the hot
 * routes (/v1/track, /v1/send). The name is derived from the text, so a text that varies (a
 * different number of placeholders) is simply another statement.
 *
 * Outside a transaction the query goes to a pooled pg client directly: the text is turned into
 * `$n` placeholders once per statement rather than by knex on every call, which was a tenth of the
 * API's own CPU per /v1/track request (docs/benchmarks.md). Bindings are passed as they are, as
 * knex's raw would pass them (pg serializes dates, arrays, buffers and JSON). In a transaction the
 * query must run on the transaction's connection, so it goes through knex.
 *
 * Name columns explicitly, never `*`: a prepared `*` fails with "cached plan must not change result
 * type" on every open connection once a migration adds a column to the table.
 */
export async function prepared(db: Knex, sql: string, bindings: readonly Knex.RawBinding[]): Promise<{ rows: any[] }> {
  const s = statementOf(sql);
  if (db.isTransaction || s.positional === null) return db.raw(sql, bindings).options({ name: s.name });
  // A binding knex would refuse must still be refused: pg would send it as NULL.
  if (bindings.includes(undefined as never)) throw new Error(`Undefined binding(s) detected for the prepared statement ${s.name}`);
  const pool = db.client as { acquireConnection(): Promise<PgClient>; releaseConnection(c: PgClient): Promise<unknown> };
  const client = await pool.acquireConnection();
  // Knex's 'query' event does not see this path: a write here must still send the request's later heavy reads to the primary.
  noteStatement(sql);
  try {
    return await client.query({ name: s.name, text: s.positional, values: bindings });
  } finally {
    await pool.releaseConnection(client);
  }
}
