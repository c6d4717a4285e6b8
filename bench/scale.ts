/**
 * Reads at scale (issue 44, docs/benchmarks.md "Ten million contacts"): a project of N contacts (five
 * data fields: plan, score, country, signup, vip) and M events (purchase, login, page.viewed over two
 * years), and a small project beside it (1,000 contacts, 5,000 events). Then the real API, and p50/p95
 * over repeated calls of every interactive read, for both projects side by side; then a segment
 * refresh (the compute the `computeSegment` activity runs) of a segment with about N/2 members.
 *
 * Seeding is server-side `INSERT … SELECT generate_series` (pg-copy-streams is not installed; neither
 * is row by row), in chunks, through the real triggers (so the rollups are the ones writes keep). The
 * seeded database `svc_bench_scale_<N>_<M>` is kept and reused by the next run of the same sizes
 * (migrated to latest first); an interrupted seed resumes at its last finished chunk.
 * `--explain` prints EXPLAIN (ANALYZE, BUFFERS) of each filter count; `--drop` drops the database at the end.
 *
 * Usage: npx tsx bench/scale.ts [N] [M] [repeats] [--explain] [--drop]   (default 1,000,000 5,000,000 9)
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { startStack, percentile, BenchStack } from './stack';
import { createKnex, ensureDatabase, migrateLatest, dropDatabase } from '../db/knex';
import { registerFields } from '../db/fields';
import { createSegment } from '../db/segments';
import { beginCompute, computeBatch, finishCompute, DEFAULT_COMPUTE_BATCH } from '../db/segmentCompute';
import { compileFilter, loadFieldTypes } from '../db/filters';
import { encodeCursor, timeKeySql } from '../db/cursors';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const N = Number(args[0] ?? 1_000_000);
const M = Number(args[1] ?? 5_000_000);
const REPEATS = Number(args[2] ?? 9);
const EXPLAIN = process.argv.includes('--explain');
const DROP = process.argv.includes('--drop');
const CHUNK = 250_000;
const DAYS = 730;

const contactId = (g: string) => `'cnt_' || lpad((${g})::text, 9, '0') || substr(md5((${g})::text), 1, 13)`;

interface Seeded {
  projectId: string;
  secretKey: string;
}

/** Rows `lo`+1 … `hi` of a project's contacts (ids shaped like lib/ids': a growing prefix, then random-looking characters). */
async function seedContacts(knex: Knex, projectId: string, prefix: string, lo: number, hi: number) {
  await knex.raw(
    `INSERT INTO contacts (id, project_id, email, subscribed, data, created_at, updated_at)
     SELECT ${contactId(`g + ${prefix === 'small' ? 900_000_000 : 0}`)}, ?, ? || g || '@bench.example', g % 10 <> 0,
            jsonb_build_object('plan', (ARRAY['free', 'pro', 'team'])[1 + g % 3], 'score', g % 100,
                               'country', (ARRAY['DE', 'FR', 'US', 'BR', 'JP'])[1 + g % 5],
                               'signup', to_char(now() - (g % ${DAYS}) * interval '1 day', 'YYYY-MM-DD'), 'vip', g % 17 = 0),
            now() - (g % ${DAYS}) * interval '1 day', now()
       FROM generate_series(?::int, ?::int) g`,
    [projectId, prefix, lo + 1, hi],
  );
}

/** Events `lo`+1 … `hi`: half logins, 30 % purchases, 20 % page views, on random contacts of the first `contacts`, over two years. */
async function seedEvents(knex: Knex, projectId: string, offset: number, contacts: number, lo: number, hi: number) {
  await knex.raw(
    `INSERT INTO events (id, project_id, contact_id, name, data, created_at, routed_at)
     SELECT gen_random_uuid(), ?::uuid, ${contactId('x.k')},
            CASE WHEN g % 10 < 5 THEN 'login' WHEN g % 10 < 8 THEN 'purchase' ELSE 'page.viewed' END,
            '{}'::jsonb, t, t
       FROM generate_series(?::int, ?::int) g, LATERAL (SELECT ${offset} + 1 + floor(random() * ${contacts})::int + 0 * g AS k,
                                                      now() - random() * interval '${DAYS} days' + g * interval '0 second' AS t) x`,
    [projectId, lo + 1, hi],
  );
}

async function progress(knex: Knex, key: string): Promise<number> {
  const row = await knex('bench_scale_progress').where({ key }).first('done');
  return row ? Number(row.done) : 0;
}
const setProgress = (knex: Knex, key: string, done: number) => knex('bench_scale_progress').insert({ key, done }).onConflict('key').merge();

async function seedProject(stack: BenchStack, label: string, contacts: number, events: number): Promise<Seeded> {
  const knex = stack.knex;
  const existing = await knex('bench_scale_progress')
    .where({ key: `${label}:project` })
    .first('value');
  let seeded: Seeded;
  if (existing) seeded = JSON.parse(existing.value);
  else {
    const email = `bench-${crypto.randomBytes(4).toString('hex')}@example.test`;
    const signup = await fetch(`${stack.url}/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'bench password' }),
    });
    const cookie = signup.headers.get('set-cookie')!.split(';')[0];
    const project = await fetch(`${stack.url}/users/@me/projects`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ name: label }),
    });
    const body = (await project.json()) as { id: string; secretKey: string };
    seeded = { projectId: body.id, secretKey: body.secretKey };
    await registerFields(knex, seeded.projectId, [
      { key: 'plan', type: 'string' },
      { key: 'score', type: 'number' },
      { key: 'country', type: 'string' },
      { key: 'signup', type: 'date' },
      { key: 'vip', type: 'boolean' },
    ]);
    await knex('bench_scale_progress').insert({ key: `${label}:project`, done: 0, value: JSON.stringify(seeded) });
  }
  const offset = label === 'small' ? 900_000_000 : 0;
  const t0 = performance.now();
  for (let lo = await progress(knex, `${label}:contacts`); lo < contacts; lo += CHUNK) {
    const hi = Math.min(contacts, lo + CHUNK);
    await seedContacts(knex, seeded.projectId, label, lo, hi);
    await setProgress(knex, `${label}:contacts`, hi);
    console.log(`  ${label}: ${hi} contacts (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }
  for (let lo = await progress(knex, `${label}:events`); lo < events; lo += CHUNK) {
    const hi = Math.min(events, lo + CHUNK);
    await seedEvents(knex, seeded.projectId, offset, contacts, lo, hi);
    await setProgress(knex, `${label}:events`, hi);
    console.log(`  ${label}: ${hi} events (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }
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
  ];
}

async function segmentRefresh(knex: Knex, projectId: string): Promise<{ id: string; seconds: number; members: number }> {
  const s = await createSegment(knex, projectId, {
    name: `refresh ${Date.now()}`,
    type: 'DYNAMIC',
    condition: one({ field: 'event.purchase', operator: 'triggered' }),
    trackMembership: false,
  });
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
    const big = await seedProject(stack, 'user', N, M);
    const small = await seedProject(stack, 'small', 1000, 5000);
    await stack.knex.raw('VACUUM (ANALYZE) contacts');
    await stack.knex.raw('VACUUM (ANALYZE) events');
    await stack.knex.raw('VACUUM (ANALYZE) contact_event_rollups');
    await stack.knex.raw('VACUUM (ANALYZE) event_hourly_counts');
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
      return kept ? (kept.value as string) : (await segmentRefresh(stack.knex, p.projectId)).id;
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
    if (EXPLAIN) await explain(stack.knex, big.projectId);
  } finally {
    await stack.stop();
  }
  if (DROP) await dropDatabase(url.toString()).catch(() => undefined);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
