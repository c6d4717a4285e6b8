/**
 * Segment compute at scale: seeds contacts (with data) and events by INSERT … SELECT generate_series,
 * then times the compute of a tracked segment with a 3-filter tree at two sizes and prints the
 * growth ratio. Two computes per size: the first (every match enters, one event each) and a
 * recompute with nothing changed (the steady state the 15-minute Schedule pays).
 *
 * What is timed is the compute run itself (db/segments beginCompute, computeBatch until done,
 * finishCompute — the work of the `computeSegment` activity); handing the entry events to Temporal
 * is left out, as it is one workflow start per event and measured by the event-routing benches.
 *
 * Usage: npx tsx bench/segments.ts [N]   (default 1,000,000; the small size is min(100k, N/2))
 */
import crypto from 'node:crypto';
import { createKnex, ensureDatabase, migrateLatest, dropDatabase } from '../db/knex';
import { createUser } from '../db/users';
import { createProject } from '../db/projects';
import { registerFields } from '../db/fields';
import { createSegment, ComputeResult } from '../db/segments';
import { beginCompute, computeBatch, finishCompute, DEFAULT_COMPUTE_BATCH } from '../db/segmentCompute';
import { countMatching } from '../db/filters';
import type { Knex } from 'knex';

const N = Number(process.argv[2] ?? 1_000_000);
const SMALL = Math.min(100_000, Math.floor(N / 2));

const TREE = {
  logic: 'AND',
  groups: [
    {
      filters: [
        { field: 'data.plan', operator: 'equals', value: 'pro' },
        { field: 'data.age', operator: 'greaterThan', value: 30 },
        { field: 'event.purchase', operator: 'within', value: 30, unit: 'days' },
      ],
    },
  ],
};

/**
 * Contacts `from`+1 … `to`: a third on each plan, ages 18–77, and a purchase for one in two (0–59 days ago) plus page views.
 * Ids are shaped like lib/ids contactId's: a prefix that grows in creation order (here the row number), then random characters.
 */
async function seed(knex: Knex, projectId: string, from: number, to: number): Promise<void> {
  const CHUNK = 250_000;
  for (let lo = from; lo < to; lo += CHUNK) {
    const hi = Math.min(to, lo + CHUNK);
    await knex.raw(
      `INSERT INTO contacts (id, project_id, email, subscribed, data, created_at, updated_at)
       SELECT 'cnt_' || lpad(g::text, 9, '0') || substr(md5(g::text), 1, 13), ?, 'user' || g || '@bench.example', g % 10 <> 0,
              jsonb_build_object('plan', (ARRAY['free', 'pro', 'team'])[1 + g % 3], 'age', 18 + g % 60, 'country', (ARRAY['DE', 'FR', 'US', 'BR'])[1 + g % 4]),
              now() - (g % 1000) * interval '1 hour', now()
         FROM generate_series(?::int, ?::int) g`,
      [projectId, lo + 1, hi],
    );
    await knex.raw(
      `INSERT INTO events (id, project_id, contact_id, name, data, created_at)
       SELECT gen_random_uuid(), ?::uuid, 'cnt_' || lpad(g::text, 9, '0') || substr(md5(g::text), 1, 13), 'purchase', '{}'::jsonb, now() - (g % 60) * interval '1 day'
         FROM generate_series(?::int, ?::int) g WHERE g % 2 = 0
       UNION ALL
       SELECT gen_random_uuid(), ?::uuid, 'cnt_' || lpad(g::text, 9, '0') || substr(md5(g::text), 1, 13), 'page.viewed', '{}'::jsonb, now() - (g % 90) * interval '1 day'
         FROM generate_series(?::int, ?::int) g`,
      [projectId, lo + 1, hi, projectId, lo + 1, hi],
    );
  }
  await knex.raw('ANALYZE contacts');
  await knex.raw('ANALYZE events');
}

async function timeCompute(knex: Knex, segmentId: string): Promise<{ seconds: number; result: ComputeResult }> {
  const runId = `bench-${crypto.randomUUID()}`;
  const t0 = performance.now();
  await beginCompute(knex, segmentId, runId);
  while (!(await computeBatch(knex, runId, DEFAULT_COMPUTE_BATCH)).done);
  const result = await finishCompute(knex, runId);
  return { seconds: (performance.now() - t0) / 1000, result };
}

interface Figures {
  size: number;
  first: number;
  recompute: number;
  count: number;
  members: number;
}

async function measure(knex: Knex, projectId: string, size: number): Promise<Figures> {
  const segment = await createSegment(knex, projectId, { name: `bench ${size}`, type: 'DYNAMIC', condition: TREE, trackMembership: true });
  const first = await timeCompute(knex, segment.id);
  const again = await timeCompute(knex, segment.id);
  if (again.result.entered !== 0 || again.result.exited !== 0) throw new Error(`recompute changed membership: ${JSON.stringify(again.result)}`);
  const t0 = performance.now();
  const counted = await countMatching(knex, projectId, TREE);
  const count = (performance.now() - t0) / 1000;
  if (counted !== first.result.memberCount) throw new Error(`count ${counted} differs from compute ${first.result.memberCount}`);
  const f = { size, first: first.seconds, recompute: again.seconds, count, members: first.result.memberCount };
  console.log(
    `${String(size).padStart(9)} contacts  members ${String(f.members).padStart(8)}   first compute ${f.first.toFixed(2).padStart(7)} s   recompute ${f.recompute.toFixed(2).padStart(7)} s   count only ${f.count.toFixed(2).padStart(6)} s`,
  );
  return f;
}

async function main() {
  const url = new URL(process.env.BENCH_DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  url.pathname = `/svc_bench_segments_${Date.now()}_${crypto.randomBytes(3).toString('hex')}`;
  await ensureDatabase(url.toString());
  const knex = createKnex(url.toString(), { max: 4 });
  try {
    await migrateLatest(knex);
    const user = await createUser(knex, `bench-${crypto.randomBytes(4).toString('hex')}@example.test`, 'bench password');
    const { row: project } = await createProject(knex, user!.id, 'segments bench');
    await registerFields(knex, project.id, [
      { key: 'plan', type: 'string' },
      { key: 'age', type: 'number' },
      { key: 'country', type: 'string' },
    ]);
    console.log(`segment compute bench: tree = plan equals pro AND age > 30 AND purchase within 30 days; batches of ${DEFAULT_COMPUTE_BATCH}`);

    let t0 = performance.now();
    await seed(knex, project.id, 0, SMALL);
    console.log(`seeded ${SMALL} contacts and ${Math.round(SMALL * 1.5)} events in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const small = await measure(knex, project.id, SMALL);

    t0 = performance.now();
    await seed(knex, project.id, SMALL, N);
    console.log(`seeded up to ${N} contacts and ${Math.round(N * 1.5)} events in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const large = await measure(knex, project.id, N);

    const sizeRatio = large.size / small.size;
    console.log(`size ratio ${sizeRatio.toFixed(1)}x`);
    console.log(`  first compute growth ${(large.first / small.first).toFixed(2)}x   (linear would be ${sizeRatio.toFixed(1)}x)`);
    console.log(`  recompute growth     ${(large.recompute / small.recompute).toFixed(2)}x`);
    console.log(`  first compute ${Math.round(large.size / large.first)} contacts/s at ${large.size}`);
  } finally {
    await knex.destroy();
    await dropDatabase(url.toString()).catch(() => undefined);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
