import type { Knex } from 'knex';

/**
 * `events` becomes a table range-partitioned by month on `created_at` (docs/capacity.md "Events
 * partitioned by month"), on a running install, without copying a row and without holding writes
 * for more than a moment:
 *
 * 1. A unique index on (id, created_at) is built CONCURRENTLY on the old table (writes go on), and
 *    a CHECK (created_at < bound) is added NOT VALID, then VALIDATEd (a scan under a lock that lets
 *    writes through). `bound` is the first day of the month after next, so no row written while
 *    this runs can fall past it.
 * 2. One short transaction (lock_timeout, retried): the old table is renamed
 *    `events_unpartitioned`, its primary key becomes (id, created_at) by the ready index, a new
 *    partitioned `events` is created with the same columns, keys, foreign keys and indexes, and the
 *    old table is ATTACHed as the partition FROM (MINVALUE) TO (bound). The CHECK proves the range,
 *    so the attach scans nothing; the existing indexes and foreign keys are adopted, not rebuilt.
 *    Triggers found on the old table (whoever added them) are recreated on the parent. Monthly
 *    partitions from `bound` and a DEFAULT partition are created in the same transaction.
 * 3. `event_keys` (062) is filled with the ids of existing events that were derived by a writer
 *    (version-8 UUIDs, lib/ids deterministicUuid), so a retry of such a write still adds nothing.
 *
 * Nothing references `events` by foreign key (no table points at events.id), so the primary key
 * changing to (id, created_at) breaks no reference. Queued writers resolve the name again after the
 * swap, so they land in the new parent.
 */
export const config = { transaction: false };

const OLD = 'events_unpartitioned';
const BOUND_CHECK = 'events_partition_bound';
const ID_CREATED = 'events_id_created_at_uniq';
/** Months of partitions created past the bound by the migration; the maintenance sweep keeps adding. */
const MONTHS_AHEAD = 3;
const LOCK_TIMEOUT = '3s';
const LOCK_ATTEMPTS = 20;

/** First instant (UTC) of the month `months` after the one of `d`. */
const monthStart = (d: Date, months: number) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1));
const partitionName = (from: Date) => `events_y${from.getUTCFullYear()}m${String(from.getUTCMonth() + 1).padStart(2, '0')}`;
const lit = (d: Date) => `'${d.toISOString()}'`;

/**
 * Runs `fn` in a transaction that gives up waiting for a lock after LOCK_TIMEOUT and tries again:
 * a DDL statement queued behind a long reader would otherwise hold every writer queued behind it.
 */
async function withLockRetry(knex: Knex, fn: (trx: Knex.Transaction) => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await knex.transaction(async (trx) => {
        await trx.raw(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
        await fn(trx);
      });
      return;
    } catch (err: any) {
      if (err?.code !== '55P03' || attempt >= LOCK_ATTEMPTS) throw err;
      await new Promise((r) => setTimeout(r, 200 * attempt));
    }
  }
}

async function isPartitioned(knex: Knex): Promise<boolean> {
  const { rows } = await knex.raw(`SELECT relkind FROM pg_class WHERE oid = to_regclass('public.events')`);
  return rows[0]?.relkind === 'p';
}

export async function up(knex: Knex): Promise<void> {
  if (await isPartitioned(knex)) return;
  const bound = monthStart(new Date(), 2);

  // 1. Ready the old table while writes go on. A CONCURRENTLY build that failed leaves an invalid index: rebuild it.
  const { rows: idx } = await knex.raw(`SELECT i.indisvalid FROM pg_index i WHERE i.indexrelid = to_regclass('public.${ID_CREATED}')`);
  if (idx[0] && !idx[0].indisvalid) await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${ID_CREATED}`);
  await knex.raw(`CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS ${ID_CREATED} ON events (id, created_at)`);
  await withLockRetry(knex, async (trx) => {
    await trx.raw(`ALTER TABLE events DROP CONSTRAINT IF EXISTS ${BOUND_CHECK}`);
    await trx.raw(`ALTER TABLE events ADD CONSTRAINT ${BOUND_CHECK} CHECK (created_at < ${lit(bound)}) NOT VALID`);
  });
  // SHARE UPDATE EXCLUSIVE: inserts and updates go on while it scans.
  await knex.raw(`ALTER TABLE events VALIDATE CONSTRAINT ${BOUND_CHECK}`);

  // 2. The swap.
  await withLockRetry(knex, async (trx) => {
    await trx.raw('LOCK TABLE events IN ACCESS EXCLUSIVE MODE');
    const { rows: triggers } = await trx.raw(
      `SELECT tgname, pg_get_triggerdef(oid) AS def FROM pg_trigger WHERE tgrelid = 'public.events'::regclass AND NOT tgisinternal ORDER BY tgname`,
    );
    const { rows: foreignKeys } = await trx.raw(
      `SELECT conname, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = 'public.events'::regclass AND contype = 'f' ORDER BY conname`,
    );
    const { rows: indexes } = await trx.raw(
      `SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS def, i.indisunique AS unique, i.indisprimary AS primary, con.conname AS constraint
         FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
         LEFT JOIN pg_constraint con ON con.conindid = i.indexrelid AND con.conrelid = i.indrelid
        WHERE i.indrelid = 'public.events'::regclass ORDER BY c.relname`,
    );
    const stray = indexes.filter((i: any) => i.unique && !i.primary && i.name !== ID_CREATED);
    // A unique index without created_at cannot exist on a partitioned table: say so rather than guess.
    if (stray.length) throw new Error(`events has unique indexes the partitioned table cannot carry: ${stray.map((i: any) => i.name).join(', ')}`);

    for (const t of triggers) await trx.raw(`DROP TRIGGER ${quoteIdent(t.tgname)} ON events`);
    const pk = indexes.find((i: any) => i.primary);
    if (pk) await trx.raw(`ALTER TABLE events DROP CONSTRAINT ${quoteIdent(pk.constraint)}`);
    await trx.raw(`ALTER TABLE events ADD CONSTRAINT ${OLD}_pkey PRIMARY KEY USING INDEX ${ID_CREATED}`);
    await trx.raw(`ALTER TABLE events RENAME TO ${OLD}`);
    const carried = indexes.filter((i: any) => !i.unique);
    for (const i of carried) await trx.raw(`ALTER INDEX ${quoteIdent(i.name)} RENAME TO ${quoteIdent(`${i.name.slice(0, 50)}_unpartitioned`)}`);

    // The parent: same columns, NOT NULLs and defaults (LIKE, not the CHECK of step 1).
    await trx.raw(`CREATE TABLE events (LIKE ${OLD} INCLUDING DEFAULTS INCLUDING STORAGE INCLUDING COMMENTS) PARTITION BY RANGE (created_at)`);
    await trx.raw('ALTER TABLE events ADD CONSTRAINT events_pkey PRIMARY KEY (id, created_at)');
    for (const fk of foreignKeys) await trx.raw(`ALTER TABLE events ADD CONSTRAINT ${quoteIdent(fk.conname)} ${fk.def}`);
    // The definitions were read before the rename: they name the index as it was and `ON public.events`.
    for (const i of carried) await trx.raw(i.def);
    await trx.raw(`ALTER TABLE events ATTACH PARTITION ${OLD} FOR VALUES FROM (MINVALUE) TO (${lit(bound)})`);
    await trx.raw(`ALTER TABLE ${OLD} DROP CONSTRAINT ${BOUND_CHECK}`);
    for (const t of triggers) await trx.raw(t.def);

    for (let m = 0; m < MONTHS_AHEAD; m++) {
      const from = monthStart(bound, m);
      await trx.raw(`CREATE TABLE IF NOT EXISTS ${partitionName(from)} PARTITION OF events FOR VALUES FROM (${lit(from)}) TO (${lit(monthStart(from, 1))})`);
    }
    // Rows past the last partition made (the sweep fell behind) or kept past a dropped month.
    await trx.raw('CREATE TABLE IF NOT EXISTS events_default PARTITION OF events DEFAULT');
  });

  // Autovacuum analyzes partitions, never a partitioned parent: give the planner the parent's statistics once (no write is held).
  await knex.raw('ANALYZE events');

  // 3. Claims for the derived ids already written (version nibble 8; crypto.randomUUID is 4).
  await knex.raw(
    `INSERT INTO event_keys (id, project_id, created_at)
     SELECT id, project_id, created_at FROM events WHERE substr(id::text, 15, 1) = '8'
     ON CONFLICT (id) DO NOTHING`,
  );
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Back to one plain table (copies every row: for development databases, not a large install). */
export async function down(knex: Knex): Promise<void> {
  if (!(await isPartitioned(knex))) return;
  await knex.transaction(async (trx) => {
    const { rows: triggers } = await trx.raw(
      `SELECT tgname, pg_get_triggerdef(oid) AS def FROM pg_trigger WHERE tgrelid = 'public.events'::regclass AND NOT tgisinternal AND tgparentid = 0`,
    );
    const { rows: foreignKeys } = await trx.raw(
      `SELECT conname, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = 'public.events'::regclass AND contype = 'f'`,
    );
    const { rows: indexes } = await trx.raw(
      `SELECT pg_get_indexdef(i.indexrelid) AS def FROM pg_index i WHERE i.indrelid = 'public.events'::regclass AND NOT i.indisprimary`,
    );
    await trx.raw('CREATE TABLE events_flat (LIKE events INCLUDING DEFAULTS)');
    await trx.raw('INSERT INTO events_flat SELECT * FROM events');
    await trx.raw('DROP TABLE events CASCADE');
    await trx.raw('ALTER TABLE events_flat RENAME TO events');
    await trx.raw('ALTER TABLE events ADD CONSTRAINT events_pkey PRIMARY KEY (id)');
    for (const fk of foreignKeys) await trx.raw(`ALTER TABLE events ADD CONSTRAINT ${quoteIdent(fk.conname)} ${fk.def}`);
    for (const i of indexes) await trx.raw(String(i.def).replace(' ON ONLY ', ' ON '));
    for (const t of triggers) await trx.raw(t.def);
  });
}
