import type { Knex } from 'knex';

/** Reuses the caller's transaction (so its other writes commit together) or opens one. */
export function inTransaction<T>(db: Knex, fn: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db as Knex.Transaction) : db.transaction(fn);
}
