/**
 * Reads at scale (issue 44, docs/benchmarks.md "Ten million contacts"): a project of N contacts (five
 * data fields: plan, score, country, signup, vip) and M events (purchase, login, page.viewed over two
 * years), and a small project beside it (1,000 contacts, 5,000 events). Then the real API, and p50/p95
 * over repeated calls of every interactive read, for both projects side by side; then a segment
 * refresh (the compute the `computeSegment` activity runs) of a segment with about N/2 members.
 *
 * Seeding is server-side `INSERT … SELECT generate_series` (pg-copy-streams is not installed; neither
 * is row by row), in chunks of one transaction each, `--jobs=K` at once. The large project is loaded
 * in bulk (bench/scaleSeed.ts: secondary indexes and foreign keys of contacts, events and the
 * per-contact rollup dropped and put back as pg_restore does, the rollup trigger off, the rollups
 * counted from the log with the triggers' semantics; test/integration/scaleSeed.test.ts holds the two
 * paths equal); `--through-triggers` writes it through the real triggers instead, as the small project
 * always is. The seeded database `svc_bench_scale_<N>_<M>` is kept and reused by the next run of the
 * same sizes (migrated to latest first); an interrupted seed resumes at its unfinished chunks and steps.
 * `--explain` prints EXPLAIN (ANALYZE, BUFFERS) of each filter count; `--drop` drops the database at
 * the end; `--no-refresh` skips the segment computes (the members pages then read a dynamic segment
 * never computed, whose page runs its live filter all the same): a first compute of N/2 members
 * takes tens of minutes at 10M.
 *
 * Usage: npx tsx bench/scale.ts [N] [M] [repeats] [--explain] [--drop] [--jobs=K] [--through-triggers] [--no-refresh]
 *        (default 1,000,000 5,000,000 9, one job)
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { startStack, percentile, benchProject, BenchStack } from './stack';
import { createKnex, ensureDatabase, migrateLatest, dropDatabase } from '../db/knex';
import { registerFields } from '../db/fields';
import { createSegment } from '../db/segments';
import { beginCompute, computeBatch, finishCompute, DEFAULT_COMPUTE_BATCH } from '../db/segmentCompute';
import { compileFilter, loadFieldTypes } from '../db/filters';
import { encodeCursor, timeKeySql } from '../db/cursors';
import {
  BULK_TABLES,
  countRollups,
  dropPrimaryKey,
  dropSecondary,
  PrimaryKey,
  primaryKeyOf,
  restorePrimaryKey,
  restoreSecondary,
  Secondary,
  SeedTarget,
  secondaryOf,
  seedContacts,
  seedEvents,
  seedEventsUncounted,
} from './scaleSeed';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const flag = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const N = Number(args[0] ?? 1_000_000);
const M = Number(args[1] ?? 5_000_000);
const REPEATS = Number(args[2] ?? 9);
const EXPLAIN = process.argv.includes('--explain');
const DROP = process.argv.includes('--drop');
const THROUGH_TRIGGERS = process.argv.includes('--through-triggers');
const NO_REFRESH = process.argv.includes('--no-refresh');
const JOBS = Number(flag('jobs') ?? 1);
const CHUNK = 250_000;

interface Seeded {
  projectId: string;
  secretKey: string;
  /** When the seed dates its rows back from (absent in a database seeded before it was kept: then the run's start). */
  anchor?: string;
}

const doneChunk = (knex: Knex | Knex.Transaction, key: string, lo: number, hi: number) =>
  knex('bench_scale_progress')
    .insert({ key: `${key}@${lo}`, done: hi })
    .onConflict('key')
    .merge();

/**
 * Chunks [lo, hi) of `total` not written yet, by `jobs` writers at once; each chunk is one transaction
 * that records itself done. Earlier runs kept one watermark per key (`key` = rows done): still honoured.
 */
async function inChunks(
  knex: Knex,
  key: string,
  total: number,
  chunk: number,
  write: (trx: Knex.Transaction, lo: number, hi: number) => Promise<void>,
  report: (rows: number) => void,
) {
  const watermark = Number((await knex('bench_scale_progress').where({ key }).first('done'))?.done ?? 0);
  const done = new Set(
    (await knex('bench_scale_progress').where('key', 'like', `${key}@%`).select('key')).map((r: { key: string }) => Number(r.key.split('@')[1])),
  );
  const todo: number[] = [];
  for (let lo = 0; lo < total; lo += chunk) if (lo + chunk > watermark && !done.has(lo)) todo.push(lo);
  let rows = Math.min(total, watermark) + [...done].reduce((n, lo) => n + Math.min(chunk, total - lo), 0);
  const worker = async () => {
    for (let lo = todo.shift(); lo !== undefined; lo = todo.shift()) {
      const hi = Math.min(total, lo + chunk);
      await knex.transaction(async (trx) => {
        await write(trx, Math.max(lo, Math.min(watermark, hi)), hi);
        await doneChunk(trx, key, lo, hi);
      });
      rows += hi - lo;
      report(rows);
    }
  };
  await Promise.all(Array.from({ length: JOBS }, worker));
}

async function createProject(stack: BenchStack, label: string): Promise<Seeded> {
  const made = await benchProject(stack, label);
  const seeded = { projectId: made.projectId, secretKey: made.secretKey, anchor: new Date().toISOString() };
  await registerFields(stack.knex, seeded.projectId, [
    { key: 'plan', type: 'string' },
    { key: 'score', type: 'number' },
    { key: 'country', type: 'string' },
    { key: 'signup', type: 'date' },
    { key: 'vip', type: 'boolean' },
  ]);
  await stack.knex('bench_scale_progress').insert({ key: `${label}:project`, done: 0, value: JSON.stringify(seeded) });
  return seeded;
}

/**
 * One project's contacts and events. `bulk` (the large project unless --through-triggers) loads the
 * way bench/scaleSeed.ts describes; every step records itself in bench_scale_progress, so an
 * interrupted seed resumes where it stopped (the dropped indexes stay dropped until the load is done).
 */
async function seedProject(stack: BenchStack, knex: Knex, label: string, contacts: number, events: number, bulk: boolean): Promise<Seeded> {
  const existing = await knex('bench_scale_progress')
    .where({ key: `${label}:project` })
    .first('value');
  const seeded: Seeded = existing ? JSON.parse(existing.value) : await createProject(stack, label);
  const target: SeedTarget = {
    projectId: seeded.projectId,
    label,
    offset: label === 'small' ? 900_000_000 : 0,
    contacts,
    anchor: seeded.anchor ?? new Date().toISOString(),
  };
  const finished = await knex('bench_scale_progress')
    .where({ key: `${label}:seeded` })
    .first('done');
  if (finished) return seeded;
  const t0 = performance.now();
  const s = () => `${((performance.now() - t0) / 1000).toFixed(0)} s`;
  const stage = (name: string) => console.log(`  ${label}: ${name} (${s()})`);

  let unloaded: Secondary[] = [];
  if (bulk) {
    const kept = await knex('bench_scale_progress')
      .where({ key: `${label}:unloaded` })
      .first('value');
    if (kept) unloaded = JSON.parse(kept.value);
    else {
      // session_replication_role = replica skips every ordinary trigger: only the rollup triggers may be on events.
      const { rows: others } = await knex.raw(
        `SELECT tgname FROM pg_trigger WHERE tgrelid = 'events'::regclass AND NOT tgisinternal AND tgname NOT LIKE 'events_rollups_%'`,
      );
      if (others.length) throw new Error(`events has triggers the bulk load would skip: ${others.map((r: any) => r.tgname).join(', ')}`);
      for (const table of BULK_TABLES) unloaded.push(await secondaryOf(knex, table));
      await knex.transaction(async (trx) => {
        for (const u of unloaded) await dropSecondary(trx, u);
        await trx('bench_scale_progress').insert({ key: `${label}:unloaded`, done: 0, value: JSON.stringify(unloaded) });
      });
      stage(`dropped the secondary indexes and foreign keys of ${BULK_TABLES.join(', ')}`);
    }
  }
  // The events' primary key too (a separate step: a seed begun before it was dropped drops it when resumed).
  let eventsKey: PrimaryKey | null = null;
  if (bulk) {
    const kept = await knex('bench_scale_progress')
      .where({ key: `${label}:unloaded-pk` })
      .first('value');
    if (kept) eventsKey = JSON.parse(kept.value);
    else {
      const pk = await primaryKeyOf(knex, 'events');
      await knex.transaction(async (trx) => {
        await dropPrimaryKey(trx, pk);
        await trx('bench_scale_progress').insert({ key: `${label}:unloaded-pk`, done: 0, value: JSON.stringify(pk) });
      });
      eventsKey = pk;
      stage('dropped the primary key of events');
    }
  }
  const chunk = bulk ? 1_000_000 : CHUNK;
  await inChunks(
    knex,
    `${label}:contacts`,
    contacts,
    chunk,
    (trx, lo, hi) => seedContacts(trx, target, lo, hi),
    (n) => stage(`${n} contacts`),
  );
  const [contactsTable, eventsTable, rollupsTable] = unloaded;
  // The contacts' indexes build while the events load (they lock contacts only; the events' foreign key to contacts waits for them).
  const contactsBack = bulk ? restoreSecondary(knex, contactsTable, JOBS, console.log).then(() => stage('contacts indexes and foreign keys back')) : null;
  // A failure is awaited (and thrown) below, not left unhandled while the events load.
  contactsBack?.catch(() => undefined);
  await inChunks(
    knex,
    `${label}:events`,
    events,
    chunk,
    (trx, lo, hi) => (bulk ? seedEventsUncounted(trx, target, lo, hi) : seedEvents(trx, target, lo, hi)),
    (n) => stage(`${n} events`),
  );
  if (bulk) {
    // The rollups are counted from the log (a sequential scan) while the events' indexes build: a read and SHARE locks, no conflict.
    const counting = (async () => {
      const counted = await knex('bench_scale_progress')
        .where({ key: `${label}:counted` })
        .first('done');
      if (!counted) {
        await knex.transaction(async (trx) => {
          await countRollups(trx, target.projectId);
          await trx('bench_scale_progress').insert({ key: `${label}:counted`, done: 1 });
        });
      }
      stage('rollups and hourly counts counted from the log');
    })();
    counting.catch(() => undefined);
    const keyBack = restorePrimaryKey(knex, eventsKey!, 1, console.log).then(() => stage('events primary key back'));
    keyBack.catch(() => undefined);
    await restoreSecondary(knex, eventsTable, JOBS, console.log, keyBack);
    stage('events indexes and foreign keys back');
    await counting;
    await contactsBack;
    await restoreSecondary(knex, rollupsTable, JOBS, console.log);
    stage('rollup indexes and foreign keys back');
  }
  await knex('bench_scale_progress').insert({ key: `${label}:seeded`, done: 1 });
  return seeded;
}

const one = (...filters: Record<string, unknown>[]) => ({ logic: 'AND', groups: [{ filters }] });
const FILTERS: Record<string, unknown> = {
  'count: plan = pro AND score > 50': one(
    { field: 'data.plan', operator: 'equals', value: 'pro' },
    { field: 'data.score', operator: 'greaterThan', value: 50 },
  ),
  'count: country in (DE, FR) AND vip': one(
    { field: 'data.country', operator: 'in', value: ['DE', 'FR'] },
    { field: 'data.vip', operator: 'equals', value: true },
  ),
  'count: purchase >= 3': one({ field: 'event.purchase', operator: 'greaterThanOrEqual', value: 3 }),
  'count: purchase within 30 days': one({ field: 'event.purchase', operator: 'within', value: 30, unit: 'days' }),
  'count: login not in 90 days': {
    logic: 'OR',
    groups: [
      { filters: [{ field: 'event.login', operator: 'olderThan', value: 90, unit: 'days' }] },
      { filters: [{ field: 'event.login', operator: 'notTriggered' }] },
    ],
  },
  'count: login notWithin 90 days (one anti-join)': one({ field: 'event.login', operator: 'notWithin', value: 90, unit: 'days' }),
  'count: purchase atLeastWithin 3 in 30 days': one({ field: 'event.purchase', operator: 'atLeastWithin', value: { atLeast: 3, within: 30 }, unit: 'days' }),
  'count: purchase 3 in 30 d AND login notWithin 90 d': one(
    { field: 'event.purchase', operator: 'atLeastWithin', value: { atLeast: 3, within: 30 }, unit: 'days' },
    { field: 'event.login', operator: 'notWithin', value: 90, unit: 'days' },
  ),
  'count: purchase >= 3 AND within 30 d AND plan = pro': one(
    { field: 'event.purchase', operator: 'greaterThanOrEqual', value: 3 },
    { field: 'event.purchase', operator: 'within', value: 30, unit: 'days' },
    { field: 'data.plan', operator: 'equals', value: 'pro' },
  ),
};

type Read = [label: string, method: 'GET' | 'POST', path: string, body?: unknown];

async function timeRead(stack: BenchStack, key: string, [, method, path, body]: Read): Promise<{ p50: number; p95: number; status: number }> {
  const times: number[] = [];
  let status = 0;
  for (let i = 0; i < REPEATS + 1; i++) {
    const t0 = performance.now();
    const res = await fetch(`${stack.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    await res.arrayBuffer();
    status = res.status;
    // The first call warms plans and caches; it is not counted.
    if (i > 0) times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), status };
}

const MEMBERS_PAGE = 'GET /segments/:id/contacts (members, first page)';

/** The members pages: the first, and one about 90 % in by OFFSET and by the keyset cursor that page would hand out. */
async function membersReads(knex: Knex, segmentId: string, label: string, contacts: number): Promise<Read[]> {
  const deep = await knex('contacts')
    .where({ email: `${label}${Math.floor(contacts * 0.9)}@bench.example` })
    .first('id', knex.raw(`${timeKeySql('created_at')} AS at`));
  // The segment holds about half the contacts; the cursor's page number only labels the answer.
  const deepPage = Math.max(1, Math.floor((contacts * 0.45) / 50));
  const memberCursor = deep ? encodeCursor([deep.at, deep.id, String(deepPage)]) : undefined;
  return [
    [MEMBERS_PAGE, 'GET', `/segments/${segmentId}/contacts?limit=50`],
    ['GET /segments/:id/contacts (members, deep page by OFFSET)', 'GET', `/segments/${segmentId}/contacts?pageSize=50&page=${deepPage}`],
    [
      'GET /segments/:id/contacts (members, deep page by cursor)',
      'GET',
      `/segments/${segmentId}/contacts?pageSize=50${memberCursor ? `&cursor=${memberCursor}` : ''}`,
    ],
  ];
}

/**
 * A campaign of the project with this audience (a sender domain marked verified first, as the tests'
 * fixture does), for its audience count: the number the send confirmation names.
 */
async function audienceCampaign(stack: BenchStack, p: Seeded, audience: Record<string, unknown>): Promise<string> {
  const domain = 'scale.bench.example';
  if (!(await stack.knex('domains').where({ project_id: p.projectId, domain }).first('id')))
    await stack
      .knex('domains')
      .insert({ id: crypto.randomUUID(), project_id: p.projectId, domain, token: 'bench', status: 'VERIFIED', records: '[]', verified_at: new Date() });
  const res = await fetch(`${stack.url}/campaigns`, {
    method: 'POST',
    headers: { authorization: `Bearer ${p.secretKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Audience', subject: 'Hi', body: '<p>Hi</p>', from: `news@${domain}`, ...audience }),
  });
  if (res.status !== 201) throw new Error(`creating a campaign: HTTP ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: { id: string } }).data.id;
}

async function readsOf(stack: BenchStack, p: Seeded, label: string, contacts: number): Promise<Read[]> {
  const knex = stack.knex;
  const deepEmail = `${label}${Math.floor(contacts * 0.9)}@bench.example`;
  const deep = await knex('contacts').where({ project_id: p.projectId, email: deepEmail }).first('id', 'email');
  const deepCursor = deep ? Buffer.from(JSON.stringify(['email', deep.email, deep.id])).toString('base64url') : undefined;
  const someone = await knex('contact_event_rollups').where({ project_id: p.projectId }).first('contact_id');
  return [
    ['GET /contacts (first page)', 'GET', '/contacts?limit=50'],
    ['GET /contacts (deep keyset page, 90 %)', 'GET', `/contacts?limit=50&sort=email${deepCursor ? `&cursor=${deepCursor}` : ''}`],
    ['GET /contacts?search= (email substring)', 'GET', `/contacts?limit=50&search=${label}12345`],
    ...Object.entries(FILTERS).map(([name, condition]): Read => [`POST /contacts/${name}`, 'POST', '/contacts/count', { condition }]),
    ['GET /analytics/top-events (30 d)', 'GET', '/analytics/top-events?days=30'],
    ['GET /analytics/timeseries events (30 d by day)', 'GET', '/analytics/timeseries?metric=events&interval=day'],
    ['GET /analytics/timeseries events (24 h by hour)', 'GET', '/analytics/timeseries?metric=events&interval=hour'],
    ['GET /analytics/top-campaigns', 'GET', '/analytics/top-campaigns'],
    ['GET /analytics/campaign-stats', 'GET', '/analytics/campaign-stats'],
    ['GET /activity (first page)', 'GET', '/activity?limit=50'],
    ['GET /events/contact/:id (a timeline)', 'GET', `/events/contact/${someone?.contact_id ?? 'none'}`],
    ['GET /contacts/:id/timeline', 'GET', `/contacts/${someone?.contact_id ?? 'none'}/timeline`],
    ['GET /campaigns/:id/audience (all, MARKETING)', 'GET', `/campaigns/${await audienceCampaign(stack, p, { audienceType: 'ALL' })}/audience`],
    [
      'GET /campaigns/:id/audience (plan = pro AND score > 50)',
      'GET',
      `/campaigns/${await audienceCampaign(stack, p, { audienceType: 'FILTERED', audienceCondition: FILTERS['count: plan = pro AND score > 50'] })}/audience`,
    ],
    [
      'GET /campaigns/:id/audience (purchase >= 3)',
      'GET',
      `/campaigns/${await audienceCampaign(stack, p, { audienceType: 'FILTERED', audienceCondition: FILTERS['count: purchase >= 3'] })}/audience`,
    ],
  ];
}

const purchasers = (knex: Knex, projectId: string) =>
  createSegment(knex, projectId, {
    name: `refresh ${Date.now()}`,
    type: 'DYNAMIC',
    condition: one({ field: 'event.purchase', operator: 'triggered' }),
    trackMembership: false,
  });

async function segmentRefresh(knex: Knex, projectId: string): Promise<{ id: string; seconds: number; members: number }> {
  const s = await purchasers(knex, projectId);
  const runId = `bench-${crypto.randomUUID()}`;
  const t0 = performance.now();
  await beginCompute(knex, s.id, runId);
  while (!(await computeBatch(knex, runId, DEFAULT_COMPUTE_BATCH)).done);
  const result = await finishCompute(knex, runId);
  return { id: s.id, seconds: (performance.now() - t0) / 1000, members: result.memberCount };
}

async function explain(knex: Knex, projectId: string) {
  const types = await loadFieldTypes(knex, projectId);
  for (const [name, tree] of Object.entries(FILTERS)) {
    const { sql, bindings } = compileFilter(tree, { fieldTypes: types });
    const { rows } = await knex.raw(`EXPLAIN (ANALYZE, BUFFERS) SELECT count(*) FROM contacts c WHERE c.project_id = ? AND (${sql})`, [projectId, ...bindings]);
    console.log(`\n${name}\n${rows.map((r: any) => `  ${r['QUERY PLAN']}`).join('\n')}`);
  }
}

async function main() {
  const url = new URL(process.env.BENCH_DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  url.pathname = `/svc_bench_scale_${N}_${M}`;
  await ensureDatabase(url.toString());
  const pre = createKnex(url.toString(), { max: 2 });
  await migrateLatest(pre);
  await pre.raw('CREATE TABLE IF NOT EXISTS bench_scale_progress (key text PRIMARY KEY, done bigint NOT NULL, value text)');
  await pre.destroy();

  const stack = await startStack({ DATABASE_URL: url.toString(), RATE_LIMIT_PER_MINUTE: '100000000' }, { keepDatabase: !DROP });
  try {
    console.log(`scale bench: ${N} contacts and ${M} events in one project, 1,000 and 5,000 in a small one; ${REPEATS} timed calls per read`);
    const t0 = performance.now();
    // The seed's own pool: --jobs writers and index builds at once.
    const seeder = createKnex(url.toString(), { max: 2 * JOBS + 4 });
    let big: Seeded;
    let small: Seeded;
    try {
      big = await seedProject(stack, seeder, 'user', N, M, !THROUGH_TRIGGERS);
      small = await seedProject(stack, seeder, 'small', 1000, 5000, false);
    } finally {
      await seeder.destroy();
    }
    for (const table of ['contacts', 'events', 'contact_event_rollups', 'event_hourly_counts']) {
      await stack.knex.raw(`VACUUM (ANALYZE) ${table}`);
      console.log(`  VACUUM (ANALYZE) ${table} (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
    }
    console.log(`seeded (or reused) in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    const { rows: sizes } = await stack.knex.raw(
      `SELECT (SELECT count(*) FROM contacts) AS contacts, (SELECT count(*) FROM events) AS events,
              (SELECT count(*) FROM contact_event_rollups) AS rollups, (SELECT count(*) FROM event_hourly_counts) AS hourly,
              pg_size_pretty(pg_database_size(current_database())) AS size`,
    );
    console.log(`database: ${JSON.stringify(sizes[0])}`);

    const segmentOf = async (p: Seeded, label: string) => {
      const kept = await stack
        .knex('bench_scale_progress')
        .where({ key: `${label}:segment` })
        .first('value');
      if (kept) return kept.value as string;
      // --no-refresh: a dynamic segment's members page runs its live filter, computed or not.
      return NO_REFRESH ? (await purchasers(stack.knex, p.projectId)).id : (await segmentRefresh(stack.knex, p.projectId)).id;
    };
    const bigReads = await readsOf(stack, big, 'user', N);
    const smallReads = await readsOf(stack, small, 'small', 1000);
    console.log(`\n${'read'.padEnd(58)} ${'large p50'.padStart(10)} ${'p95'.padStart(9)}   ${'small p50'.padStart(10)} ${'p95'.padStart(9)}`);
    const row = async (bigRead: Read, smallRead: Read) => {
      const a = await timeRead(stack, big.secretKey, bigRead);
      const b = await timeRead(stack, small.secretKey, smallRead);
      const ms = (x: number) => `${x.toFixed(1)} ms`.padStart(9);
      const flag = a.status >= 400 ? `  (HTTP ${a.status}: skipped)` : a.p95 > 1000 ? '  > 1 s' : '';
      console.log(`${bigRead[0].padEnd(58)} ${ms(a.p50).padStart(10)} ${ms(a.p95)}   ${ms(b.p50).padStart(10)} ${ms(b.p95)}${flag}`);
    };
    for (let i = 0; i < bigReads.length; i++) await row(bigReads[i], smallReads[i]);
    // The members page reads the segment the previous run computed, or one computed now, after the
    // other reads: a compute writes one entry event per member, a burst in the current hour that the
    // analytics would then read from the log (at 1M contacts the first run's did: 776,610 events, and
    // top-events over 1 s; docs/benchmarks.md).
    const bigMembers = await membersReads(stack.knex, await segmentOf(big, 'user'), 'user', N);
    const smallMembers = await membersReads(stack.knex, await segmentOf(small, 'small'), 'small', 1000);
    for (const [i, read] of bigMembers.entries()) await row(read, smallMembers[i]);
    if (EXPLAIN) await explain(stack.knex, big.projectId);
    if (!NO_REFRESH) {
      const refresh = await segmentRefresh(stack.knex, big.projectId);
      console.log(
        `\nsegment refresh (purchase triggered): ${refresh.members} members in ${refresh.seconds.toFixed(1)} s (target: 1,000,000 in ≤ 30 s; ${Math.round(refresh.members / refresh.seconds)} members/s)`,
      );
      await stack.knex('bench_scale_progress').insert({ key: 'user:segment', done: 0, value: refresh.id }).onConflict('key').merge();
      await stack
        .knex('bench_scale_progress')
        .insert({ key: 'small:segment', done: 0, value: (await segmentRefresh(stack.knex, small.projectId)).id })
        .onConflict('key')
        .merge();
    }
  } finally {
    await stack.stop();
  }
  if (DROP) await dropDatabase(url.toString()).catch(() => undefined);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
