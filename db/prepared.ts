import crypto from 'node:crypto';
import type { Knex } from 'knex';

const names = new Map<string, string>();

/**
 * `db.raw(sql, bindings)` as a named prepared statement: Postgres parses and plans it once per
 * connection instead of on every call, which matters for the per-request statements of the hot
 * routes (/v1/track, /v1/send). The name is derived from the text, so a text that varies (a
 * different number of placeholders) is simply another statement.
 *
 * Name columns explicitly, never `*`: a prepared `*` fails with "cached plan must not change result
 * type" on every open connection once a migration adds a column to the table.
 */
export function prepared(db: Knex, sql: string, bindings: readonly Knex.RawBinding[]): Knex.Raw {
  let name = names.get(sql);
  if (!name) {
    name = `svc_${crypto.createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
    names.set(sql, name);
  }
  return db.raw(sql, bindings).options({ name });
}
