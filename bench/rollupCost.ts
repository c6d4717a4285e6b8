/**
 * What the event rollups (migration 059) cost the `/v1/track` write: the route's statement (the
 * contact upsert with its event, db/contactWriters upsertContactWith + linkedEvent, as bench/track.ts's
 * floor calls it) with the rollup triggers enabled and disabled, in alternating slices (ABAB…), on one
 * connection. The figure is the CPU of that connection's own Postgres backend (/proc/<pid>/stat), so
 * other work on a busy machine does not enter it (wall time does, and is printed beside it).
 *
 * Usage: npx tsx bench/rollupCost.ts [events per slice] [slices]   (default 2,000 and 8)
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createKnex, ensureDatabase, migrateLatest, dropDatabase } from '../db/knex';
import { createUser } from '../db/users';
import { createProject } from '../db/projects';
import { linkedEvent, upsertContactWith } from '../db/contactWriters';

const PER_SLICE = Number(process.argv[2] ?? 2000);
const SLICES = Number(process.argv[3] ?? 8);
const TICK_MS = 1000 / 100; // USER_HZ

const backendCpuMs = (pid: number) => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
};

async function main() {
  const url = new URL(process.env.BENCH_DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  url.pathname = `/svc_bench_rollupcost_${Date.now()}_${crypto.randomBytes(3).toString('hex')}`;
  await ensureDatabase(url.toString());
  // One connection: every statement runs in the backend whose CPU is read.
  const knex = createKnex(url.toString(), { min: 1, max: 1 });
  try {
    await migrateLatest(knex);
    const user = await createUser(knex, `bench-${crypto.randomBytes(4).toString('hex')}@example.test`, 'bench password');
    const { row: project } = await createProject(knex, user!.id, 'rollup cost');
    const pid = Number((await knex.raw('SELECT pg_backend_pid() AS pid')).rows[0].pid);
    let i = 0;
    const slice = async () => {
      const cpu0 = backendCpuMs(pid);
      const t0 = performance.now();
      for (let n = 0; n < PER_SLICE; n++, i++) {
        await upsertContactWith(
          knex,
          { projectId: project.id, email: `user${i % 5000}@bench.example`, data: { plan: 'pro' }, defaultSubscribed: true, source: 'track' },
          linkedEvent({ name: 'signup', data: { plan: 'pro' } }),
        );
      }
      return { cpu: (backendCpuMs(pid) - cpu0) / PER_SLICE, wall: (performance.now() - t0) / PER_SLICE };
    };
    const set = async (on: boolean) => {
      for (const t of ['events_rollups_insert', 'events_rollups_delete', 'events_rollups_update']) {
        await knex.raw(`ALTER TABLE events ${on ? 'ENABLE' : 'DISABLE'} TRIGGER ${t}`);
      }
    };
    await slice(); // warm-up: plans, caches, the 5,000 contacts created
    const totals = { on: { cpu: 0, wall: 0 }, off: { cpu: 0, wall: 0 } };
    for (let s = 0; s < SLICES; s++) {
      const on = s % 4 === 0 || s % 4 === 3; // ABBA
      await set(on);
      const r = await slice();
      totals[on ? 'on' : 'off'].cpu += r.cpu / (SLICES / 2);
      totals[on ? 'on' : 'off'].wall += r.wall / (SLICES / 2);
      console.log(`  slice ${s + 1} rollups ${on ? 'on ' : 'off'}: backend CPU ${r.cpu.toFixed(3)} ms/event, wall ${r.wall.toFixed(3)} ms/event`);
    }
    await set(true);
    const ratio = totals.on.cpu / totals.off.cpu;
    console.log(`rollup cost, ${SLICES} slices of ${PER_SLICE} tracked events (contact upsert + event, one connection)`);
    console.log(`  rollups off : backend CPU ${totals.off.cpu.toFixed(3)} ms/event   wall ${totals.off.wall.toFixed(3)} ms/event`);
    console.log(`  rollups on  : backend CPU ${totals.on.cpu.toFixed(3)} ms/event   wall ${totals.on.wall.toFixed(3)} ms/event`);
    console.log(
      `  on / off    : CPU ${(ratio * 100).toFixed(0)} % (target ≤ 120 %: ${ratio <= 1.2 ? 'met' : 'not met'}), wall ${((totals.on.wall / totals.off.wall) * 100).toFixed(0)} %`,
    );
  } finally {
    await knex.destroy();
    await dropDatabase(url.toString()).catch(() => undefined);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
