/**
 * Where an import's time goes in Postgres (issue 44 target 2), without the API, Temporal or the worker:
 *
 * 1. The COPY floor per index set: N rows of bench/import.ts's five fields COPY'd into a fresh copy of
 *    `contacts` (same columns, indexes and project foreign key) with every index, without each GIN
 *    index, with the GIN indexes' pending list enlarged, and with fastupdate off. Each variant gets
 *    its own empty table, and the variants run in turn twice (A B C … A B C …) so the machine's load
 *    drifts over all of them alike. With an enlarged pending list the rows wait in it; the time to
 *    merge them (`gin_clean_pending_list`) is printed beside, since a job must pay it at its end.
 * 2. The import's batch transaction (db/jobs processJobBatch + db/contactBatchWriter, as
 *    activities/bulk applyImport runs it) on N staged rows, every statement timed, then one batch's
 *    round statement under EXPLAIN (ANALYZE, BUFFERS) (auto_explain, sent back as a notice).
 *
 * The 1-minute load average is printed beside every figure: the machine is shared.
 *
 * Usage: npx tsx bench/importCost.ts [rows] [batchSize] [pendingListKb]   (default 100,000, 5,000, 65,536)
 */
import crypto from 'node:crypto';
import os from 'node:os';
import type { Knex } from 'knex';
import { spawn } from 'node:child_process';
import { createKnex, ensureDatabase, migrateLatest, dropDatabase } from '../db/knex';
import { createUser } from '../db/users';
import { createProject } from '../db/projects';
import { createJob, markJobRunning, processJobBatch, type ImportRowPayload, type JobError, type JobRowRecord } from '../db/jobs';
import { type BatchContact, upsertContacts } from '../db/contactBatchWriter';
import { contactId } from '../lib/ids';

const ROWS = Number(process.argv[2] ?? 100_000);
const BATCH = Number(process.argv[3] ?? 5_000);
const PENDING_KB = Number(process.argv[4] ?? 65_536);
const GIN = ['contacts_data_gin', 'contacts_email_trgm', 'contacts_data_values_trgm'];

const load = () => os.loadavg()[0].toFixed(1);
const rate = (n: number, ms: number) => Math.round(n / (ms / 1000)).toLocaleString('en-US');
const data = (i: number) => ({ first_name: `Name${i}`, plan: ['free', 'pro', 'team'][i % 3], score: i % 100, country: ['DE', 'FR', 'US', 'BR', 'JP'][i % 5] });
const email = (tag: string, i: number) => `user${i}@${tag}.bench.example`;

interface Variant {
  name: string;
  /** Index changes on the variant's table `t`. */
  setup: (t: string) => string[];
  /** Merges the pending lists after the COPY, timed apart. */
  clean?: boolean;
  /** Session settings of the COPY (PGOPTIONS). */
  options?: string;
  /** A second session merges the pending lists over and over while the COPY runs. */
  cleaner?: boolean;
}

const ALL_VARIANTS: Variant[] = [
  { name: 'all indexes (fastupdate on, 4 MB pending list: the defaults)', setup: () => [] },
  ...GIN.map((g) => ({ name: `without ${g}`, setup: (t: string) => [`DROP INDEX ${t}_${g}`] })),
  {
    name: `all indexes, gin_pending_list_limit ${PENDING_KB / 1024} MB`,
    setup: (t: string) => GIN.map((g) => `ALTER INDEX ${t}_${g} SET (fastupdate = on, gin_pending_list_limit = ${PENDING_KB})`),
    clean: true,
  },
  {
    name: `all indexes, ${PENDING_KB / 1024} MB pending list, work_mem 64 MB`,
    setup: (t: string) => GIN.map((g) => `ALTER INDEX ${t}_${g} SET (fastupdate = on, gin_pending_list_limit = ${PENDING_KB})`),
    clean: true,
    options: '-c work_mem=64MB',
  },
  {
    name: `all indexes, session's pending list ${PENDING_KB / 1024} MB, cleaned alongside`,
    setup: () => [],
    clean: true,
    options: `-c gin_pending_list_limit=${PENDING_KB}`,
    cleaner: true,
  },
  { name: 'all indexes, defaults, work_mem 64 MB', setup: () => [], options: '-c work_mem=64MB' },
  ...(process.env.FASTUPDATE_OFF
    ? [{ name: 'all indexes, fastupdate off', setup: (t: string) => GIN.map((g) => `ALTER INDEX ${t}_${g} SET (fastupdate = off)`) }]
    : []),
];

/** VARIANTS=0,5 picks some by their place in the list. */
const VARIANTS = process.env.VARIANTS ? process.env.VARIANTS.split(',').map((k) => ALL_VARIANTS[Number(k)]) : ALL_VARIANTS;

/** A fresh table like `contacts` whose indexes are named `<table>_<index of contacts>`. */
async function freshTable(knex: Knex, t: string): Promise<void> {
  await knex.raw(`DROP TABLE IF EXISTS ${t}`);
  await knex.raw(`CREATE TABLE ${t} (LIKE contacts INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`);
  await knex.raw(`ALTER TABLE ${t} ADD PRIMARY KEY (id), ADD FOREIGN KEY (project_id) REFERENCES projects(id) ON DELETE CASCADE`);
  const { rows } = await knex.raw(`SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'contacts' AND indexname <> 'contacts_pkey'`);
  for (const r of rows as { indexname: string; indexdef: string }[]) {
    await knex.raw(r.indexdef.replace(` ${r.indexname} ON public.contacts `, ` ${t}_${r.indexname} ON public.${t} `));
  }
}

/** Through psql's \\copy, as bench/import.ts's floor. */
async function copyRows(url: string, t: string, projectId: string, tag: string, n: number, options = ''): Promise<number> {
  const child = spawn('psql', [url, '-v', 'ON_ERROR_STOP=1', '-qc', `\\copy ${t} (id, project_id, email, subscribed, data) FROM STDIN`], {
    stdio: ['pipe', 'inherit', 'inherit'],
    env: { ...process.env, PGOPTIONS: options },
  });
  const done = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
  const t0 = performance.now();
  for (let i = 1; i <= n; i += 10_000) {
    const chunk = Array.from(
      { length: Math.min(10_000, n - i + 1) },
      (_, k) => `${contactId()}\t${projectId}\t${email(tag, i + k)}\tt\t${JSON.stringify(data(i + k))}\n`,
    ).join('');
    if (!child.stdin.write(chunk)) await new Promise((r) => child.stdin.once('drain', r));
  }
  child.stdin.end();
  if ((await done) !== 0) throw new Error('COPY failed');
  return performance.now() - t0;
}

/** gin_clean_pending_list on the table's GIN indexes, in turn, until `going` says stop; returns the rounds. */
async function cleanWhile(db: Knex, t: string, going: () => boolean): Promise<number> {
  let n = 0;
  while (going()) {
    for (const g of GIN) await db.raw('SELECT gin_clean_pending_list(?::regclass)', [`${t}_${g}`]);
    n++;
    await new Promise((r) => setTimeout(r, 200));
  }
  return n;
}

async function floors(knex: Knex, url: string, projectId: string): Promise<void> {
  const cleanerDb = createKnex(url, { max: 1 });
  console.log(`\n1. COPY of ${ROWS.toLocaleString('en-US')} rows into a fresh copy of contacts, per index set (two passes)`);
  for (let pass = 1; pass <= Number(process.env.PASSES ?? 2); pass++) {
    for (const [k, v] of VARIANTS.entries()) {
      const t = `ic_${k}`;
      await freshTable(knex, t);
      for (const s of v.setup(t)) await knex.raw(s);
      await knex.raw('CHECKPOINT');
      const before = load();
      let copying = true;
      const cleaner = v.cleaner ? cleanWhile(cleanerDb, t, () => copying) : Promise.resolve(0);
      const ms = await copyRows(url, t, projectId, `p${pass}v${k}`, ROWS, v.options);
      copying = false;
      const cleanings = await cleaner;
      let line = `  pass ${pass} | ${v.name.padEnd(56)} | ${(ms / 1000).toFixed(1).padStart(5)} s | ${rate(ROWS, ms).padStart(6)} rows/s`;
      if (v.clean) {
        const c0 = performance.now();
        for (const g of GIN) await knex.raw('SELECT gin_clean_pending_list(?::regclass)', [`${t}_${g}`]);
        const cms = performance.now() - c0;
        line += ` | + clean ${(cms / 1000).toFixed(1)} s = ${rate(ROWS, ms + cms)} rows/s${v.cleaner ? ` (${cleanings} cleanings alongside)` : ''}`;
      }
      console.log(`${line} | load ${before}→${load()}`);
      await knex.raw(`DROP TABLE ${t}`);
    }
  }
  await cleanerDb.destroy();
}

/** Statement times of the batch transactions, by the statement's first words. */
function statementTimer(knex: Knex) {
  const started = new Map<string, { t: number; key: string }>();
  const total = new Map<string, { ms: number; n: number }>();
  const key = (sql: string) => {
    const s = sql.replace(/\s+/g, ' ').trim();
    if (s.startsWith('WITH input AS')) return 'round upsert (contactBatchWriter ROUND_SQL)';
    return s.slice(0, 60);
  };
  knex.on('query', (q: any) => started.set(q.__knexQueryUid, { t: performance.now(), key: key(q.sql) }));
  knex.on('query-response', (_r: unknown, q: any) => {
    const s = started.get(q.__knexQueryUid);
    if (!s) return;
    started.delete(q.__knexQueryUid);
    const e = total.get(s.key) ?? { ms: 0, n: 0 };
    e.ms += performance.now() - s.t;
    e.n++;
    total.set(s.key, e);
  });
  return total;
}

/** activities/bulk applyImport without the hand-off of events (new contacts have none). */
async function applyImport(trx: Knex.Transaction, projectId: string, rows: JobRowRecord<ImportRowPayload>[]): Promise<JobError[]> {
  const contacts = rows.map((r) => r.payload as BatchContact);
  const written = await upsertContacts(trx, { projectId, contacts, defaultSubscribed: true, source: 'import' });
  return written.errors.map((e) => ({ row: rows[e.index].row_number, message: e.message }));
}

async function batches(knex: Knex, projectId: string): Promise<void> {
  console.log(`\n2. The import's batch transactions: ${ROWS.toLocaleString('en-US')} staged rows in batches of ${BATCH.toLocaleString('en-US')} into contacts`);
  const staged = Array.from({ length: ROWS }, (_, k) => ({ rowNumber: k + 2, payload: { email: email('job', k + 1), data: data(k + 1) } }));
  const job = await createJob(knex, { projectId, type: 'IMPORT', rows: staged });
  await markJobRunning(knex, job.id);
  await knex.raw('CHECKPOINT');
  const times = statementTimer(knex);
  const before = load();
  const t0 = performance.now();
  let after = 0;
  for (;;) {
    const r = await processJobBatch(knex, job.id, { after, limit: BATCH }, (trx, j, rows) =>
      applyImport(trx, j.project_id, rows as JobRowRecord<ImportRowPayload>[]),
    );
    if (!r.more) break;
    after = r.last;
  }
  const ms = performance.now() - t0;
  console.log(`  ${(ms / 1000).toFixed(1)} s, ${rate(ROWS, ms)} rows/s | load ${before}→${load()}`);
  for (const [k, v] of [...times.entries()].sort((a, b) => b[1].ms - a[1].ms)) {
    console.log(`  ${((v.ms / ms) * 100).toFixed(0).padStart(3)} % ${(v.ms / 1000).toFixed(2).padStart(7)} s ×${String(v.n).padStart(4)}  ${k}`);
  }
}

async function explainOneBatch(knex: Knex, projectId: string): Promise<void> {
  console.log(`\n3. One batch of ${BATCH.toLocaleString('en-US')} new contacts, EXPLAIN (ANALYZE, BUFFERS) of every statement (auto_explain), rolled back`);
  const conn: any = await (knex.client as any).acquireConnection();
  const notices: string[] = [];
  const onNotice = (m: { message: string }) => notices.push(m.message);
  conn.on('notice', onNotice);
  await (knex.client as any).releaseConnection(conn);
  // The pool has one connection: the LOAD, the settings and the transaction share it.
  await knex.raw("LOAD 'auto_explain'");
  await knex.raw(
    'SET auto_explain.log_min_duration = 0; SET auto_explain.log_analyze = on; SET auto_explain.log_buffers = on; SET auto_explain.log_nested_statements = off',
  );
  await knex.raw("SET auto_explain.log_triggers = on; SET auto_explain.log_level = 'notice'");
  const contacts = Array.from({ length: BATCH }, (_, k) => ({ email: email('explain', k + 1), data: data(k + 1) }));
  const before = load();
  await knex
    .transaction(async (trx) => {
      await upsertContacts(trx, { projectId, contacts, defaultSubscribed: true, source: 'import' });
      throw new Error('rollback');
    })
    .catch((e) => {
      if (e.message !== 'rollback') throw e;
    });
  conn.off('notice', onNotice);
  console.log(`  load ${before}→${load()}`);
  for (const n of notices) if (!/^duration: 0\.\d+ ms/.test(n)) console.log(n.replace(/^/gm, '  '));
}

async function main() {
  const url = `postgres://postgres@127.0.0.1:5432/svc_importcost_${Date.now()}_${crypto.randomBytes(3).toString('hex')}`;
  await ensureDatabase(url);
  const knex = createKnex(url, { max: 1 });
  try {
    await migrateLatest(knex);
    const user = await createUser(knex, 'importcost@example.test', 'bench password');
    const { row: project } = await createProject(knex, user!.id, 'importcost');
    console.log(
      `import cost: ${ROWS.toLocaleString('en-US')} rows, ${new Date().toISOString()}, load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    const only = process.env.ONLY ?? 'floors,batches,explain';
    if (only.includes('floors')) await floors(knex, url, project.id);
    if (only.includes('batches')) await batches(knex, project.id);
    if (only.includes('explain')) await explainOneBatch(knex, project.id);
  } finally {
    await knex.destroy();
    await dropDatabase(url);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
