/**
 * POST /v1/track at concurrency 32, side by side with its floor: the same SQL the route executes
 * per request (the key lookup that also counts the rate limit, then the contact upsert with its
 * event in one statement), through the same db/ functions, from a node loop at the same concurrency.
 * Usage: npx tsx bench/track.ts [seconds]
 */
import { startStack, runLoad, runRemoteLoad, postJson, benchProject, sideBySide, reportSideBySide } from './stack';
import { linkedEvent, splitData, upsertContactWith } from '../db/contacts';
import { findProjectByKeyCounting } from '../db/projects';
import { windowStartOf } from '../db/rateLimit';

const SECONDS = Number(process.argv[2] ?? 15);
const CONCURRENCY = 32;

async function main() {
  const stack = await startStack({ RATE_LIMIT_PER_MINUTE: '100000000' });
  try {
    const p = await benchProject(stack);
    const emails = (i: number) => `user${i % 5000}@bench.example`;
    // Warm both paths (connections, JIT, plan caches).
    await runLoad((i) => postJson(`${stack.url}/v1/track`, { email: emails(i), event: 'warm' }, { authorization: `Bearer ${p.publicKey}` }), CONCURRENCY, 2);

    const data = { plan: 'pro' };
    const floorLoad = (seconds: number) => runLoad(async (i) => {
      // As api/middleware/auth.ts and api/operations/track.ts call them.
      const found = await findProjectByKeyCounting(stack.knex, p.publicKey, new Date(windowStartOf(Date.now())));
      const split = splitData(data);
      await upsertContactWith(
        stack.knex,
        { projectId: found!.project.id, email: emails(i), data, defaultSubscribed: true, source: 'track' },
        linkedEvent({ name: 'signup', data: { ...split.set, ...split.oneOff } }),
      );
      return true;
    }, CONCURRENCY, seconds);
    // The HTTP client runs in its own process so it does not share the API's event loop.
    const routeLoad = (seconds: number) => runRemoteLoad(`${stack.url}/v1/track`, `Bearer ${p.publicKey}`, { email: 'user{i}@bench.example', event: 'signup', data: { plan: 'pro' } }, CONCURRENCY, seconds);
    const result = await sideBySide(floorLoad, routeLoad, SECONDS, { Temporal: stack.server.process.pid });
    console.log(`track bench, concurrency ${CONCURRENCY}, ${SECONDS}s each (ABBA slices)`);
    reportSideBySide({ floor: 'floor (same SQL, node loop)', route: 'POST /v1/track' }, result, 50);
  } finally {
    await stack.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
