/**
 * POST /v1/track at concurrency 32, side by side with its floor: the same SQL the route executes
 * per request (the key lookup that also counts the rate limit, then the contact upsert with its
 * event in one statement), through the same db/ functions, from a node loop at the same concurrency.
 * Afterwards the worker starts and routes what the route handed off, and the bench prints the
 * Temporal actions per tracked event (the project has no workflow and no webhook endpoint, so its
 * events trigger nothing: routing is all they cost). The warm-up tracks into a project of its own,
 * so its routing is not counted; the floor's events never reach Temporal.
 * Usage: npx tsx bench/track.ts [seconds]
 */
import { startStack, runLoad, runRemoteLoad, postJson, benchProject, sideBySide, reportSideBySide, startWorkerProcess, stopWorkerProcess } from './stack';
import { countActions, formatActions, noActions, untilClosed } from './actions';
import { splitData } from '../lib/contactData';
import { linkedEvent, upsertContactWith } from '../db/contactWriters';
import { findProjectByKeyCounting } from '../db/projects';
import { windowStartOf } from '../db/rateLimit';

const SECONDS = Number(process.argv[2] ?? 15);
const CONCURRENCY = 32;

async function main() {
  const stack = await startStack({ RATE_LIMIT_PER_MINUTE: '100000000' });
  let worker: ReturnType<typeof startWorkerProcess> | null = null;
  try {
    const warm = await benchProject(stack);
    const p = await benchProject(stack);
    const emails = (i: number) => `user${i % 5000}@bench.example`;
    // Warm both paths (connections, JIT, plan caches); in a project of its own, whose routing is not counted.
    await runLoad((i) => postJson(`${stack.url}/v1/track`, { email: emails(i), event: 'warm' }, { authorization: `Bearer ${warm.publicKey}` }), CONCURRENCY, 2);

    const data = { plan: 'pro' };
    const floorLoad = (seconds: number) =>
      runLoad(
        async (i) => {
          // As api/middleware/auth.ts and api/operations/track.ts call them.
          const found = await findProjectByKeyCounting(stack.knex, p.publicKey, new Date(windowStartOf(Date.now())), 100_000_000);
          const split = splitData(data);
          await upsertContactWith(
            stack.knex,
            { projectId: found!.project.id, email: emails(i), data, defaultSubscribed: true, source: 'track' },
            linkedEvent({ name: 'signup', data: { ...split.set, ...split.oneOff } }),
          );
          return true;
        },
        CONCURRENCY,
        seconds,
      );
    // The HTTP client runs in its own process so it does not share the API's event loop.
    const routeLoad = (seconds: number) =>
      runRemoteLoad(
        `${stack.url}/v1/track`,
        `Bearer ${p.publicKey}`,
        { email: 'user{i}@bench.example', event: 'signup', data: { plan: 'pro' } },
        CONCURRENCY,
        seconds,
      );
    const result = await sideBySide(floorLoad, routeLoad, SECONDS, { Temporal: stack.server.process.pid });
    console.log(`track bench, concurrency ${CONCURRENCY}, ${SECONDS}s each (ABBA slices)`);
    reportSideBySide({ floor: 'floor (same SQL, node loop)', route: 'POST /v1/track' }, result, 50);

    // Now route what the route handed off, and count what that cost Temporal.
    worker = startWorkerProcess(stack);
    const client = await stack.temporal.client();
    const mine = `ProjectId = '${p.projectId}'`;
    const events = result.route.requests - result.route.errors;
    await untilClosed(client, mine);
    const tally = await countActions(client, mine, { groupBy: (w) => w.type });
    // The maintenance sweep routes events left unrouted for 2 minutes, one `routeEvent` each: only
    // the floor's could be (it writes events without handing them off), in a long run. Not the route's cost.
    const types = Object.keys(tally.groups).filter((t) => t !== 'routeEvent');
    if (types.some((t) => t !== 'routeEventBatch')) throw new Error(`the tracked events triggered runs: ${types.join(', ')}`);
    const batches = tally.groups.routeEventBatch ?? noActions();
    const label = 'floor (same SQL, node loop)';
    console.log(
      `  ${'Temporal actions'.padEnd(label.length)} : ${formatActions(batches, events, 'event', 0.05)}, ${tally.runs.routeEventBatch ?? 0} routeEventBatch runs`,
    );
  } finally {
    await stopWorkerProcess(worker);
    await stack.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
