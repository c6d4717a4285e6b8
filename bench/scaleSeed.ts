import type { Knex } from 'knex';

/**
 * The rows bench/scale.ts seeds, and the two ways it writes them (docs/benchmarks.md "10,000,000
 * contacts / 50,000,000 events"):
 *
 * - **through the triggers**: `INSERT … SELECT generate_series` in chunks with every index, foreign
 *   key and the rollup triggers of migration 059 in place, as the application writes (5,000–19,000
 *   events/s here: 50M events would take hours);
 * - **bulk**, the way pg_restore loads: the tables' secondary indexes and foreign keys are dropped
 *   first and recreated after (same names, same definitions, on the partitioned `events` parent and
 *   on each partition), the events are written with the rollup insert trigger disabled, and the
 *   rollups are then counted from the log in one statement each, with the triggers' semantics.
 *
 * Both write the same rows: the contact and the time of event `g` come from hashes of `g`, not from
 * `random()`, so test/integration/scaleSeed.test.ts seeds both ways and compares the rollups.
 */

export const DAYS = 730;

/** A contact id shaped like lib/ids' (a growing prefix, then random-looking characters), from the SQL integer expression `g`. */
export const contactIdSql = (g: string) => `'cnt_' || lpad((${g})::text, 9, '0') || substr(md5((${g})::text), 1, 13)`;

/** What one project's seed is: its contacts are numbered `offset`+1 … `offset`+`contacts`; events are dated back from `anchor`. */
export interface SeedTarget {
  projectId: string;
  /** Email prefix (`user`, `small`). */
  label: string;
  offset: number;
  contacts: number;
  /** ISO instant the events and contacts are dated back from (kept with the project so a resumed seed writes the same rows). */
  anchor: string;
}

/** Rows `lo`+1 … `hi` of the project's contacts, five data fields. */
export async function seedContacts(knex: Knex | Knex.Transaction, t: SeedTarget, lo: number, hi: number): Promise<void> {
  await knex.raw(
    `INSERT INTO contacts (id, project_id, email, subscribed, data, created_at, updated_at)
     SELECT ${contactIdSql(`g + ${t.offset}`)}, ?, ? || g || '@bench.example', g % 10 <> 0,
            jsonb_build_object('plan', (ARRAY['free', 'pro', 'team'])[1 + g % 3], 'score', g % 100,
                               'country', (ARRAY['DE', 'FR', 'US', 'BR', 'JP'])[1 + g % 5],
                               'signup', to_char(?::timestamptz - (g % ${DAYS}) * interval '1 day', 'YYYY-MM-DD'), 'vip', g % 17 = 0),
            ?::timestamptz - (g % ${DAYS}) * interval '1 day', ?::timestamptz
       FROM generate_series(?::int, ?::int) g`,
    [t.projectId, t.label, t.anchor, t.anchor, t.anchor, lo + 1, hi],
  );
}

/**
 * Events `lo`+1 … `hi`: half logins, 30 % purchases, 20 % page views, each on a contact and at a time
 * over the last two years drawn uniformly by hashing `g` (hashint8extended with two seeds), so a
 * given `g` is the same event whichever way and however often it is written. Ids are random.
 */
export async function seedEvents(knex: Knex | Knex.Transaction, t: SeedTarget, lo: number, hi: number): Promise<void> {
  await knex.raw(
    `INSERT INTO events (id, project_id, contact_id, name, data, created_at, routed_at)
     SELECT gen_random_uuid(), ?::uuid, ${contactIdSql('x.k')},
            CASE WHEN g % 10 < 5 THEN 'login' WHEN g % 10 < 8 THEN 'purchase' ELSE 'page.viewed' END,
            '{}'::jsonb, x.t, x.t
       FROM generate_series(?::bigint, ?::bigint) g,
            LATERAL (SELECT ${t.offset} + 1 + (hashint8extended(g, 1) & 2147483647) % ${t.contacts} AS k,
                            ?::timestamptz - ((hashint8extended(g, 2) & 4503599627370495)::float8 / 4503599627370496) * interval '${DAYS} days' AS t) x`,
    [t.projectId, lo + 1, hi, t.anchor],
  );
}

/**
 * The events' writes without the rollup insert trigger of migration 059, for this transaction only:
 * `session_replication_role = replica` skips ordinary triggers without a lock (ALTER TABLE … DISABLE
 * TRIGGER would take one that serialises parallel writers). The caller checks that the rollup
 * triggers are the only ones on `events`; the foreign keys' triggers are gone with the foreign keys.
 */
export async function seedEventsUncounted(trx: Knex.Transaction, t: SeedTarget, lo: number, hi: number): Promise<void> {
  await trx.raw('SET LOCAL session_replication_role = replica');
  await seedEvents(trx, t, lo, hi);
}

/**
 * The rollups of the project's events counted from the log, replacing what the project had, with
 * the insert trigger's semantics (migration 059): per contact and name its count and first/last
 * time (events without a contact have none), per name and UTC hour a count. The trigger spreads an
 * hour's count over slots by backend pid and readers sum the slots; a recount puts it in slot 0, as
 * db/eventRollups.ts's backfill does. Rows are written in primary-key order.
 */
export async function countRollups(trx: Knex.Transaction, projectId: string): Promise<void> {
  // The aggregates sort tens of millions of rows: give this transaction's sorts memory (the machine has 23 GB).
  await trx.raw(`SET LOCAL work_mem = '1GB'`);
  await trx.raw('DELETE FROM contact_event_rollups WHERE project_id = ?', [projectId]);
  await trx.raw('DELETE FROM event_hourly_counts WHERE project_id = ?', [projectId]);
  await trx.raw(
    `INSERT INTO contact_event_rollups (contact_id, name, project_id, count, first_at, last_at)
     SELECT e.contact_id, e.name, e.project_id, count(*), min(e.created_at), max(e.created_at)
       FROM events e WHERE e.project_id = ? AND e.contact_id IS NOT NULL
      GROUP BY e.contact_id, e.name, e.project_id
      ORDER BY e.contact_id, e.name`,
    [projectId],
  );
  await trx.raw(
    `INSERT INTO event_hourly_counts (project_id, name, hour, slot, count)
     SELECT e.project_id, e.name, date_trunc('hour', e.created_at, 'UTC'), 0, count(*)
       FROM events e WHERE e.project_id = ?
      GROUP BY 1, 2, 3
      ORDER BY 1, 2, 3`,
    [projectId],
  );
}

/** A table's secondary indexes (not unique, backing no constraint) and foreign keys, as they are, to drop and put back. */
export interface Secondary {
  table: string;
  indexes: Array<{ name: string; def: string; children: Array<{ name: string; def: string }> }>;
  foreignKeys: Array<{ name: string; def: string }>;
  /** Every index and foreign key of the table and its partitions (name and definition): what must hold again after. */
  schema: string[];
}

/** Every index and foreign key of `table` and its partitions, one line each, sorted. */
export async function schemaOf(knex: Knex, table: string): Promise<string[]> {
  const { rows } = await knex.raw(
    `WITH rel AS (SELECT ?::regclass AS oid UNION SELECT inhrelid FROM pg_inherits WHERE inhparent = ?::regclass)
     SELECT 'index ' || c.relname || ': ' || pg_get_indexdef(i.indexrelid) || CASE WHEN i.indisvalid THEN '' ELSE ' (invalid)' END AS line
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid IN (SELECT oid FROM rel)
     UNION ALL
     SELECT 'constraint ' || con.conrelid::regclass::text || '.' || con.conname || ': ' || pg_get_constraintdef(con.oid) || CASE WHEN con.convalidated THEN '' ELSE ' (not validated)' END
       FROM pg_constraint con WHERE con.conrelid IN (SELECT oid FROM rel) AND con.contype = 'f'
     ORDER BY 1`,
    [table, table],
  );
  return rows.map((r: { line: string }) => r.line);
}

export async function secondaryOf(knex: Knex, table: string): Promise<Secondary> {
  const { rows: indexes } = await knex.raw(
    `SELECT i.indexrelid::int AS oid, c.relname AS name, pg_get_indexdef(i.indexrelid) AS def
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE i.indrelid = ?::regclass AND NOT i.indisunique AND NOT i.indisprimary
        AND NOT EXISTS (SELECT 1 FROM pg_constraint con WHERE con.conindid = i.indexrelid)
      ORDER BY c.relname`,
    [table],
  );
  const out: Secondary = { table, indexes: [], foreignKeys: [], schema: await schemaOf(knex, table) };
  for (const i of indexes) {
    // On a partitioned parent, the partitions' indexes attached to it (named by 063 or by Postgres).
    const { rows: children } = await knex.raw(
      `SELECT c.relname AS name, pg_get_indexdef(c.oid) AS def FROM pg_inherits h JOIN pg_class c ON c.oid = h.inhrelid
        WHERE h.inhparent = ? ORDER BY c.relname`,
      [i.oid],
    );
    out.indexes.push({ name: i.name, def: i.def, children });
  }
  const { rows: fks } = await knex.raw(
    `SELECT conname AS name, pg_get_constraintdef(oid) AS def FROM pg_constraint
      WHERE conrelid = ?::regclass AND contype = 'f' AND conparentid = 0 ORDER BY conname`,
    [table],
  );
  out.foreignKeys = fks;
  return out;
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Drops what `secondaryOf` found (a partitioned index takes its partitions' with it; so does a foreign key). */
export async function dropSecondary(trx: Knex | Knex.Transaction, s: Secondary): Promise<void> {
  for (const fk of s.foreignKeys) await trx.raw(`ALTER TABLE ${ident(s.table)} DROP CONSTRAINT IF EXISTS ${ident(fk.name)}`);
  for (const i of s.indexes) await trx.raw(`DROP INDEX IF EXISTS ${ident(i.name)}`);
}

/**
 * Puts back what `dropSecondary` dropped, each piece once (a resumed run skips what exists), the way
 * pg_restore does for a partitioned table: each partition's index under its old name (`jobs` builds
 * at once: a plain CREATE INDEX takes a SHARE lock, which does not conflict with another's), then
 * the parent's index `ON ONLY` with every partition's attached to it; then the foreign keys, each
 * validated by one scan. Then the table's indexes and foreign keys must read exactly as before, or it throws.
 */
export async function restoreSecondary(
  knex: Knex,
  s: Secondary,
  jobs: number,
  log: (line: string) => void = () => {},
  /** What else must be back before the comparison (the primary key, built beside these). */
  alongside: Promise<void> = Promise.resolve(),
): Promise<void> {
  const exists = async (db: Knex | Knex.Transaction, name: string) =>
    (await db.raw('SELECT to_regclass(?) AS r', [`public.${ident(name)}`])).rows[0].r !== null;
  const builds = s.indexes.flatMap((i) => (i.children.length ? i.children : [i]));
  const build = async () => {
    for (let b = builds.shift(); b; b = builds.shift()) {
      const index = b;
      const t0 = performance.now();
      await knex.transaction(async (trx) => {
        await trx.raw(`SET LOCAL maintenance_work_mem = '512MB'`);
        if (!(await exists(trx, index.name))) await trx.raw(index.def);
      });
      log(`  index ${index.name}: ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    }
  };
  await Promise.all(Array.from({ length: jobs }, build));
  for (const i of s.indexes.filter((x) => x.children.length)) {
    await knex.transaction(async (trx) => {
      if (!(await exists(trx, i.name))) await trx.raw(i.def);
      for (const c of i.children) {
        const { rows } = await trx.raw('SELECT 1 FROM pg_inherits WHERE inhrelid = to_regclass(?) AND inhparent = to_regclass(?)', [
          `public.${ident(c.name)}`,
          `public.${ident(i.name)}`,
        ]);
        if (!rows.length) await trx.raw(`ALTER INDEX ${ident(i.name)} ATTACH PARTITION ${ident(c.name)}`);
      }
    });
  }
  for (const fk of s.foreignKeys) {
    const t0 = performance.now();
    const { rows } = await knex.raw('SELECT 1 FROM pg_constraint WHERE conrelid = ?::regclass AND conname = ?', [s.table, fk.name]);
    if (!rows.length) await knex.raw(`ALTER TABLE ${ident(s.table)} ADD CONSTRAINT ${ident(fk.name)} ${fk.def}`);
    log(`  foreign key ${fk.name}: ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  await alongside;
  const now = await schemaOf(knex, s.table);
  const missing = s.schema.filter((l) => !now.includes(l));
  const extra = now.filter((l) => !s.schema.includes(l));
  if (missing.length || extra.length) {
    throw new Error(`${s.table}: indexes and foreign keys differ from before the load.\nmissing: ${missing.join('\n')}\nextra: ${extra.join('\n')}`);
  }
}

/**
 * A partitioned table's primary key: on the parent and, under their own names, on each partition. The
 * bulk path drops it too for `events` (pg_restore adds primary keys after the data as well): random
 * ids put each insert on a random leaf of an index far larger than shared_buffers, and after every
 * checkpoint the first change to a leaf writes the whole page to the WAL.
 */
export interface PrimaryKey {
  table: string;
  name: string;
  def: string;
  children: Array<{ table: string; name: string }>;
  /** The parent's and the partitions' primary keys (name, definition, parent, index), to hold again after. */
  schema: string[];
}

async function primaryKeySchema(knex: Knex, table: string): Promise<string[]> {
  const { rows } = await knex.raw(
    `WITH rel AS (SELECT ?::regclass AS oid UNION SELECT inhrelid FROM pg_inherits WHERE inhparent = ?::regclass)
     SELECT con.conrelid::regclass::text || '.' || con.conname || ': ' || pg_get_constraintdef(con.oid)
            || ' parent ' || coalesce((SELECT p.conname FROM pg_constraint p WHERE p.oid = con.conparentid), '-')
            || ' index ' || pg_get_indexdef(con.conindid) || CASE WHEN i.indisvalid THEN '' ELSE ' (invalid)' END AS line
       FROM pg_constraint con JOIN pg_index i ON i.indexrelid = con.conindid
      WHERE con.conrelid IN (SELECT oid FROM rel) AND con.contype = 'p' ORDER BY 1`,
    [table, table],
  );
  return rows.map((r: { line: string }) => r.line);
}

export async function primaryKeyOf(knex: Knex, table: string): Promise<PrimaryKey> {
  const { rows } = await knex.raw(
    `SELECT oid, conname AS name, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = ?::regclass AND contype = 'p'`,
    [table],
  );
  const { rows: children } = await knex.raw(
    `SELECT conrelid::regclass::text AS table, conname AS name FROM pg_constraint WHERE conparentid = ? AND contype = 'p' ORDER BY 1`,
    [rows[0].oid],
  );
  return { table, name: rows[0].name, def: rows[0].def, children, schema: await primaryKeySchema(knex, table) };
}

export async function dropPrimaryKey(trx: Knex | Knex.Transaction, pk: PrimaryKey): Promise<void> {
  await trx.raw(`ALTER TABLE ${ident(pk.table)} DROP CONSTRAINT IF EXISTS ${ident(pk.name)}`);
}

/**
 * As pg_restore puts a partitioned table's primary key back: each partition's (`jobs` at once; a unique
 * index, then `ALTER TABLE ONLY … ADD CONSTRAINT … USING INDEX`), the parent's `ONLY` (an invalid index until every partition's is
 * attached), then each attached. Throws unless the keys read as before.
 */
export async function restorePrimaryKey(knex: Knex, pk: PrimaryKey, jobs: number, log: (line: string) => void = () => {}): Promise<void> {
  const has = async (db: Knex | Knex.Transaction, table: string, name: string) =>
    (await db.raw(`SELECT 1 FROM pg_constraint WHERE conrelid = ?::regclass AND conname = ? AND contype = 'p'`, [table, name])).rows.length > 0;
  const todo = [...pk.children];
  const build = async () => {
    for (let c = todo.shift(); c; c = todo.shift()) {
      const child = c;
      const t0 = performance.now();
      await knex.transaction(async (trx) => {
        await trx.raw(`SET LOCAL maintenance_work_mem = '512MB'`);
        if (await has(trx, child.table, child.name)) return;
        // The unique index first (a SHARE lock: the other builds and the rollup count go on), then the
        // key on it (ADD PRIMARY KEY would build under ACCESS EXCLUSIVE and queue everything behind it).
        const exists = (await trx.raw('SELECT to_regclass(?) AS r', [`public.${ident(child.name)}`])).rows[0].r !== null;
        if (!exists) await trx.raw(`CREATE UNIQUE INDEX ${ident(child.name)} ON ${ident(child.table)} ${pk.def.replace(/^PRIMARY KEY /, '')}`);
        await trx.raw(`ALTER TABLE ONLY ${ident(child.table)} ADD CONSTRAINT ${ident(child.name)} PRIMARY KEY USING INDEX ${ident(child.name)}`);
      });
      log(`  primary key ${child.name}: ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    }
  };
  await Promise.all(Array.from({ length: jobs }, build));
  await knex.transaction(async (trx) => {
    if (!(await has(trx, pk.table, pk.name))) await trx.raw(`ALTER TABLE ONLY ${ident(pk.table)} ADD CONSTRAINT ${ident(pk.name)} ${pk.def}`);
    for (const c of pk.children) {
      const { rows } = await trx.raw('SELECT 1 FROM pg_inherits WHERE inhrelid = to_regclass(?) AND inhparent = to_regclass(?)', [
        `public.${ident(c.name)}`,
        `public.${ident(pk.name)}`,
      ]);
      if (!rows.length) await trx.raw(`ALTER INDEX ${ident(pk.name)} ATTACH PARTITION ${ident(c.name)}`);
    }
  });
  const now = await primaryKeySchema(knex, pk.table);
  if (JSON.stringify(now) !== JSON.stringify(pk.schema)) {
    throw new Error(`${pk.table}: primary keys differ from before the load.\nbefore: ${pk.schema.join('\n')}\nafter: ${now.join('\n')}`);
  }
}

/** The tables the bulk path unloads: their secondary indexes and foreign keys go, and come back after. */
export const BULK_TABLES = ['contacts', 'events', 'contact_event_rollups'];
