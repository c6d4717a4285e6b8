import knexFactory, { Knex } from 'knex';
import { Client } from 'pg';
import { migrationSource } from './migrations';

// Keep bigint counts as numbers and DATE columns as plain strings; both are safe for our ranges.
import pg from 'pg';
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1082, (v) => v);

export interface KnexOptions {
  min?: number;
  max?: number;
  /**
   * Postgres `statement_timeout` of every session of the pool (ms; 0 or absent: none). The API's
   * pool sets it so one slow or lock-blocked query cannot hold a request and a connection for ever;
   * the worker's pool does not (docs/deployment.md "Statement timeout").
   */
  statementTimeoutMs?: number;
}

export function createKnex(databaseUrl: string, pool: KnexOptions = {}): Knex {
  const knex = knexFactory({
    client: 'pg',
    // Set at connection start-up (startup parameters), so every pooled session has them before its first query.
    // JIT off: on the large reads (counts over millions of contacts, analytics) Postgres spent more time
    // compiling than running them (EXPLAIN ANALYZE at 200k contacts / 1M events: 0.3–1.25 s of JIT in a 2 s
    // count; docs/benchmarks.md "Ten million contacts"), and this service's queries are short and many.
    connection: {
      connectionString: databaseUrl,
      options: '-c jit=off',
      ...(pool.statementTimeoutMs ? { statement_timeout: pool.statementTimeoutMs } : {}),
    },
    pool: { min: pool.min ?? 0, max: pool.max ?? 10 },
  });
  return knex;
}

/** Creates the database named in the URL when it does not exist yet (connecting to `postgres` to do so). */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!name) throw new Error('DATABASE_URL names no database');
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      try {
        await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
      } catch (err: any) {
        // Two processes starting at once may both try; the loser sees duplicate_database.
        if (err?.code !== '42P04') throw err;
      }
    }
  } finally {
    await client.end();
  }
}

export async function dropDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

export async function migrateLatest(knex: Knex): Promise<void> {
  await knex.migrate.latest({ migrationSource });
}
