/**
 * A segment refresh at scale, alone (issue 44 target 2: 1,000,000 members in ≤ 30 s), on a kept
 * database seeded like bench/scale.ts (N contacts, M events: half logins, 30 % purchases, 20 % page
 * views). The segment is tracked; its condition is `event.purchase triggered` (`--members=purchase`,
 * the default when M > 0) or every contact (`--members=all`: `email endsWith @bench.example`, the
 * default when M = 0, so `1000000 0` is a million members without seeding events). It prints both
 * things a "refresh" can mean, each against the target:
 *
 * - the spec's refresh (POST /segments/:id/refresh): the live count, cached; no membership writes;
 * - the compute (POST /segments/:id/compute): the first compute (every member enters: a member row,
 *   an entry event and its rollup row, and the timeline's history), then a recompute with nothing
 *   changed;
 *
 * and floors measured in the same run on the same member rows: a bare INSERT … SELECT of them into a
 * copy of `segment_members` (its indexes, no foreign keys), into `segment_members` itself, and of
 * their entry events into `events` (triggers and all); the last two rolled back. Every figure is
 * the Postgres backend's own CPU time (`/proc/<pid>/stat`, which other work on the machine does not
 * stretch) per member beside the wall time, members/s and the 1-minute load average.
 *
 * Each run creates its segment, and removes it with everything it wrote at the end, so runs before
 * and after a change read and write the same database. Beside the compute: the WAL it wrote, the
 * rows inserted per table and the time of each chunk. `--explain` first prints EXPLAIN (ANALYZE,
 * BUFFERS, WAL) of one chunk's statement (rolled back).
 *
 * Usage: npx tsx bench/segmentRefresh.ts [N] [M] [--members=all|purchase] [--explain] [--batch=K] [--drop]
 *        (default 300,000 1,500,000)
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import type { Knex } from 'knex';
import { cpuMeter } from './cpu';
import { createKnex, ensureDatabase, migrateLatest, dropDatabase } from '../db/knex';
import { createUser } from '../db/users';
import { createProject } from '../db/projects';
import { createSegment, refreshMemberCount, segmentEventName, SegmentRow } from '../db/segments';
import { compileFilter, loadFieldTypes } from '../db/filters';
import { beginCompute, computeBatch, finishCompute, chunkStatement, DEFAULT_COMPUTE_BATCH, ComputeLaneRow } from '../db/segmentCompute';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const N = Number(args[0] ?? 300_000);
const M = Number(args[1] ?? 1_500_000);
const EXPLAIN = process.argv.includes('--explain');
const DROP = process.argv.includes('--drop');
const BATCH = Number(process.argv.find((a) => a.startsWith('--batch='))?.slice(8) ?? DEFAULT_COMPUTE_BATCH);
/** Lanes of the compute (SEGMENT_COMPUTE_LANES); above 1 the CPU figure is every Postgres backend's, not one's. */
const LANES = Number(process.argv.find((a) => a.startsWith('--lanes='))?.slice(8) ?? 1);
const MEMBERS = process.argv.find((a) => a.startsWith('--members='))?.slice(10) ?? (M > 0 ? 'purchase' : 'all');
const CONDITIONS: Record<string, object> = {
  purchase: { logic: 'AND', groups: [{ filters: [{ field: 'event.purchase', operator: 'triggered' }] }] },
  all: { logic: 'AND', groups: [{ filters: [{ field: 'email', operator: 'endsWith', value: '@bench.example' }] }] },
};
/** Issue 44 target 2: 1,000,000 members in ≤ 30 s, i.e. 33,333 members/s. */
const TARGET_PER_S = 1_000_000 / 30;
const CHUNK = 250_000;
const DAYS = 730;

const contactId = (g: string) => `'cnt_' || lpad((${g})::text, 9, '0') || substr(md5((${g})::text), 1, 13)`;
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

async function seed(knex: Knex): Promise<string> {
  await knex.raw('CREATE TABLE IF NOT EXISTS bench_progress (key text PRIMARY KEY, done bigint NOT NULL, value text)');
  const kept = await knex('bench_progress').where({ key: 'project' }).first('value');
  let projectId = kept?.value as string | undefined;
  if (!projectId) {
    const user = await createUser(knex, `bench-${crypto.randomBytes(4).toString('hex')}@example.test`, 'bench password');
    projectId = (await createProject(knex, user!.id, 'segment refresh bench')).row.id as string;
    await knex('bench_progress').insert({ key: 'project', done: 0, value: projectId });
  }
  const progress = async (key: string) => Number((await knex('bench_progress').where({ key }).first('done'))?.done ?? 0);
  const done = (key: string, n: number) => knex('bench_progress').insert({ key, done: n }).onConflict('key').merge();
  const t0 = performance.now();
  for (let lo = await progress('contacts'); lo < N; lo += CHUNK) {
    const hi = Math.min(N, lo + CHUNK);
    await knex.raw(
      `INSERT INTO contacts (id, project_id, email, subscribed, data, created_at, updated_at)
       SELECT ${contactId('g')}, ?, 'user' || g || '@bench.example', g % 10 <> 0,
              jsonb_build_object('plan', (ARRAY['free', 'pro', 'team'])[1 + g % 3], 'score', g % 100),
              now() - (g % ${DAYS}) * interval '1 day', now()
         FROM generate_series(?::int, ?::int) g`,
      [projectId, lo + 1, hi],
    );
    await done('contacts', hi);
    console.log(`  ${hi} contacts (${((performance.now() - t0) / 1000).toFixed(0)} s, load ${load()})`);
  }
  for (let lo = await progress('events'); lo < M; lo += CHUNK) {
    const hi = Math.min(M, lo + CHUNK);
    await knex.raw(
      `INSERT INTO events (id, project_id, contact_id, name, data, created_at, routed_at)
       SELECT gen_random_uuid(), ?::uuid, ${contactId('x.k')},
              CASE WHEN g % 10 < 5 THEN 'login' WHEN g % 10 < 8 THEN 'purchase' ELSE 'page.viewed' END,
              '{}'::jsonb, t, t
         FROM generate_series(?::int, ?::int) g, LATERAL (SELECT 1 + floor(random() * ${N})::int + 0 * g AS k,
                                                        now() - random() * interval '${DAYS} days' + g * interval '0 second' AS t) x`,
      [projectId, lo + 1, hi],
    );
    await done('events', hi);
    console.log(`  ${hi} events (${((performance.now() - t0) / 1000).toFixed(0)} s, load ${load()})`);
  }
  if (!(await progress('analyzed'))) {
    await knex.raw('VACUUM (ANALYZE) contacts, events, contact_event_rollups');
    await done('analyzed', 1);
  }
  return projectId;
}

const TABLES = ['segment_members', 'segment_membership_changes', 'contact_event_rollups', 'event_hourly_counts', 'events_%', 'segment_computes'];

/** Rows inserted, updated and deleted so far per table (events summed over its partitions). */
async function tableCounters(knex: Knex): Promise<Map<string, number[]>> {
  const { rows } = await knex.raw(
    `SELECT CASE WHEN relname LIKE 'events_%' THEN 'events (partitions)' ELSE relname END AS t,
            sum(n_tup_ins)::bigint AS ins, sum(n_tup_upd)::bigint AS upd, sum(n_tup_del)::bigint AS del
       FROM pg_stat_user_tables WHERE relname LIKE ANY (?) GROUP BY 1`,
    [TABLES],
  );
  return new Map(rows.map((r: any) => [r.t, [Number(r.ins), Number(r.upd), Number(r.del)]]));
}

/** CPU seconds (user + system) the backend `pid` has used: what a compute costs Postgres, whatever else loads the machine. */
const backendCpu = (pid: number) => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};
/** With lanes: the wall time and every Postgres backend's CPU time (a quiet machine's Postgres is the compute's). */
async function measuredAll<T>(fn: () => Promise<T>): Promise<{ value: T; seconds: number; cpu: number; loadBefore: string }> {
  const loadBefore = load();
  const meter = cpuMeter({});
  const value = await fn();
  const r = meter.stop();
  return { value, seconds: r.seconds, cpu: r.parts.Postgres, loadBefore };
}

const backendPid = async (knex: Knex) => Number((await knex.raw('SELECT pg_backend_pid() AS p')).rows[0].p);

const walLsn = async (knex: Knex) => (await knex.raw('SELECT pg_current_wal_lsn()::text AS l')).rows[0].l as string;
const walBytes = async (knex: Knex, from: string) => Number((await knex.raw('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), ?::pg_lsn) AS d', [from])).rows[0].d);

/** One line per figure: wall, members/s, backend CPU per member, the load before → after, and the target's verdict where it applies. */
function report(label: string, members: number, seconds: number, cpu: number, loadBefore: string, target: boolean) {
  const rate = members / seconds;
  const perMember = members ? ` = ${((cpu / members) * 1e6).toFixed(1)} µs per member` : '';
  const verdict = target ? ` — target 1,000,000 in ≤ 30 s (${Math.round(TARGET_PER_S)}/s): ${rate >= TARGET_PER_S ? 'met' : 'not met'}` : '';
  console.log(
    `${label}: ${members} members in ${seconds.toFixed(1)} s (${Math.round(rate)} members/s), Postgres CPU ${cpu.toFixed(1)} s${perMember}; load ${loadBefore} → ${load()}${verdict}`,
  );
}

/** Runs `fn` on `knex` (a pool of one connection) and returns its wall time and the backend's CPU time. */
async function measured<T>(knex: Knex, fn: () => Promise<T>): Promise<{ value: T; seconds: number; cpu: number; loadBefore: string }> {
  if (LANES > 1) return measuredAll(fn);
  const pid = await backendPid(knex);
  const cpu0 = backendCpu(pid);
  const loadBefore = load();
  const t0 = performance.now();
  const value = await fn();
  const seconds = (performance.now() - t0) / 1000;
  if ((await backendPid(knex)) !== pid) throw new Error("the work changed connections: its CPU time is not one backend's");
  return { value, seconds, cpu: backendCpu(pid) - cpu0, loadBefore };
}

/** The spec's refresh (POST /segments/:id/refresh): the live count, cached; nothing else written. */
async function timeRefresh(knex: Knex, segment: SegmentRow) {
  const { value, seconds, cpu, loadBefore } = await measured(knex, () => refreshMemberCount(knex, segment));
  report("refresh (the spec's POST /segments/:id/refresh: count only, no membership writes)", value.member_count, seconds, cpu, loadBefore, true);
}

/**
 * Floors on the same member rows, one statement each: into a copy of `segment_members` (its
 * indexes, no foreign keys), into `segment_members` itself (its foreign keys too) and their entry
 * events into `events` (five indexes, two foreign keys, the rollup triggers); the last two rolled back.
 */
async function timeFloors(knex: Knex, segment: SegmentRow) {
  const match = compileFilter(segment.condition, { fieldTypes: await loadFieldTypes(knex, segment.project_id) });
  const members = `SELECT ?::uuid AS segment_id, c.id AS contact_id FROM contacts c WHERE c.project_id = ? AND (${match.sql})`;
  const bindings = [segment.id, segment.project_id, ...match.bindings];
  await knex.raw('DROP TABLE IF EXISTS bench_floor_members');
  await knex.raw('CREATE TABLE bench_floor_members (LIKE segment_members INCLUDING DEFAULTS INCLUDING INDEXES)');
  const bare = await measured(knex, () => knex.raw(`INSERT INTO bench_floor_members (segment_id, contact_id) ${members}`, bindings));
  report(
    'floor: INSERT … SELECT of the member rows into a copy of segment_members (2 indexes, no foreign keys)',
    bare.value.rowCount,
    bare.seconds,
    bare.cpu,
    bare.loadBefore,
    false,
  );
  await knex.raw('DROP TABLE bench_floor_members');
  const rolledBack = async (label: string, sql: string, b: readonly Knex.RawBinding[]) => {
    let rows = 0;
    const r = await measured(knex, () =>
      knex
        .transaction(async (trx) => {
          rows = (await trx.raw(sql, b)).rowCount;
          await trx.rollback();
        })
        .catch((err) => {
          // A rollback without an error rejects with undefined.
          if (err) throw err;
        }),
    );
    report(label, rows, r.seconds, r.cpu, r.loadBefore, false);
  };
  await rolledBack(
    'floor: the same rows into segment_members (2 indexes, 2 foreign keys), rolled back',
    `INSERT INTO segment_members (segment_id, contact_id) ${members}`,
    bindings,
  );
  await rolledBack(
    'floor: their entry events into events (5 indexes, 2 foreign keys, the rollup rows), rolled back',
    `INSERT INTO events (id, project_id, contact_id, name, data, routed_at)
     SELECT gen_random_uuid(), c.project_id, c.id, 'segment.bench-floor.entry', jsonb_build_object('segmentId', ?::uuid), now()
       FROM contacts c WHERE c.project_id = ? AND (${match.sql})`,
    [segment.id, segment.project_id, ...match.bindings],
  );
}

/** Times a compute on `knex`, a pool of one connection (so one backend does all of it and its CPU time can be read). */
async function timeCompute(knex: Knex, segment: SegmentRow, label: string) {
  const runId = `bench-${crypto.randomUUID()}`;
  await knex.raw('SELECT pg_stat_clear_snapshot()');
  const before = await tableCounters(knex);
  const lsn = await walLsn(knex);
  const chunks: string[] = [];
  let routable = 0;
  const {
    value: result,
    seconds,
    cpu,
    loadBefore,
  } = await measured(knex, async () => {
    const lanes = await beginCompute(knex, segment.id, runId, { lanes: LANES, batchSize: BATCH });
    await Promise.all(
      lanes.map(async (lane) => {
        for (;;) {
          const c0 = performance.now();
          const out = await computeBatch(knex, runId, BATCH, lane);
          routable += out.events.length;
          if (out.walked) chunks.push(`${((performance.now() - c0) / 1000).toFixed(1)}`);
          if (out.done) break;
        }
      }),
    );
    return finishCompute(knex, runId);
  });
  const wal = await walBytes(knex, lsn);
  await new Promise((r) => setTimeout(r, 600)); // the statistics collector's flush
  await knex.raw('SELECT pg_stat_clear_snapshot()');
  const after = await tableCounters(knex);
  const moved = result.entered + result.exited;
  report(`${label} (entered ${result.entered}, exited ${result.exited})`, result.memberCount, seconds, cpu, loadBefore, moved > 0);
  if (moved)
    console.log(
      `  per change: ${((cpu / moved) * 1e6).toFixed(1)} µs of Postgres CPU, ${Math.round(wal / moved)} B of WAL (cluster-wide: ${(wal / 2 ** 20).toFixed(0)} MB)`,
    );
  console.log(`  ${routable} events to route; chunks of ${BATCH} (s): ${chunks.join(' ')}`);
  for (const [t, [ins, upd, del]] of after) {
    const [i0, u0, d0] = before.get(t) ?? [0, 0, 0];
    if (ins - i0 || upd - u0 || del - d0) console.log(`  ${t.padEnd(28)} +${ins - i0} inserted, ${upd - u0} updated, ${del - d0} deleted`);
  }
  return { seconds, result };
}

async function explainChunk(knex: Knex, segment: SegmentRow) {
  const runId = `bench-explain-${crypto.randomUUID()}`;
  await knex
    .transaction(async (trx) => {
      await beginCompute(trx, segment.id, runId);
      const lane = await trx<ComputeLaneRow>('segment_compute_lanes').where({ run_id: runId, lane: 0 }).first();
      const { sql, bindings } = await chunkStatement(trx, lane!, segment, BATCH);
      const { rows } = await trx.raw(`EXPLAIN (ANALYZE, BUFFERS, WAL) ${sql}`, bindings);
      console.log(`\nEXPLAIN (ANALYZE, BUFFERS, WAL) of the first chunk (${BATCH} contacts), rolled back:`);
      console.log(rows.map((r: any) => `  ${r['QUERY PLAN']}`).join('\n'));
      await trx.rollback();
    })
    .catch((err) => {
      if (err) console.log(err);
    });
}

/** Removes what a run wrote (its events, history, members, runs and the segment), so the next run starts from the same data. */
async function cleanup(knex: Knex, projectId: string, segment: SegmentRow) {
  await knex('events')
    .where({ project_id: projectId })
    .whereIn('name', [segmentEventName(segment.slug, 'entry'), segmentEventName(segment.slug, 'exit')])
    .delete();
  await knex('segment_membership_changes').where({ segment_id: segment.id }).delete();
  await knex('segment_members').where({ segment_id: segment.id }).delete();
  await knex('segment_computes').where({ segment_id: segment.id }).delete();
  await knex('segments').where({ id: segment.id }).delete();
  await knex.raw('VACUUM (ANALYZE) segment_members, segment_membership_changes, contact_event_rollups, event_hourly_counts, events');
}

async function main() {
  const url = new URL(process.env.BENCH_DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  url.pathname = `/svc_bench_segrefresh_${N}_${M}`;
  await ensureDatabase(url.toString());
  const knex = createKnex(url.toString(), { max: 4 });
  const one = createKnex(url.toString(), { min: 1, max: 1 });
  try {
    await migrateLatest(knex);
    console.log(`segment refresh bench: ${N} contacts, ${M} events; segment "${MEMBERS}", chunks of ${BATCH}; load ${load()}`);
    const projectId = await seed(knex);
    const segment = await createSegment(knex, projectId, {
      name: `refresh ${Date.now()}`,
      type: 'DYNAMIC',
      condition: CONDITIONS[MEMBERS],
      trackMembership: true,
    });
    try {
      if (EXPLAIN) await explainChunk(knex, segment);
      await timeRefresh(one, segment);
      await timeFloors(one, segment);
      await timeCompute(LANES > 1 ? knex : one, segment, "first compute (the spec's POST /segments/:id/compute: membership diff, entry/exit events)");
      await timeCompute(LANES > 1 ? knex : one, segment, 'recompute, nothing changed');
    } finally {
      await cleanup(knex, projectId, segment);
    }
  } finally {
    await one.destroy();
    await knex.destroy();
  }
  if (DROP) await dropDatabase(url.toString()).catch(() => undefined);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
