/**
 * POST /v1/track at concurrency 32, side by side with its floor: the same SQL the route executes
 * (contact upsert + event insert in one transaction), run from a node loop at the same concurrency.
 * Usage: npx tsx bench/track.ts [seconds]
 */
import { startStack, runLoad, runRemoteLoad, postJson, fmt, benchProject } from './stack';
import { upsertContact } from '../db/contacts';
import { recordEvent } from '../db/events';

const SECONDS = Number(process.argv[2] ?? 15);
const CONCURRENCY = 32;

async function main() {
  const stack = await startStack({ RATE_LIMIT_PER_MINUTE: '100000000' });
  try {
    const p = await benchProject(stack);
    const emails = (i: number) => `user${i % 5000}@bench.example`;
    // Warm both paths (connections, JIT, plan caches).
    await runLoad((i) => postJson(`${stack.url}/v1/track`, { email: emails(i), event: 'warm' }, { authorization: `Bearer ${p.publicKey}` }), CONCURRENCY, 2);

    const floor = await runLoad(async (i) => {
      await stack.knex.transaction(async (trx) => {
        const c = await upsertContact(trx, { projectId: p.projectId, email: emails(i), data: { plan: 'pro' }, defaultSubscribed: true });
        await recordEvent(trx, { projectId: p.projectId, contactId: c.contact.id, name: 'floor', data: { plan: 'pro' } });
      });
      return true;
    }, CONCURRENCY, SECONDS);
    // The HTTP client runs in its own process so it does not share the API's event loop.
    const route = await runRemoteLoad(`${stack.url}/v1/track`, `Bearer ${p.publicKey}`, { email: 'user{i}@bench.example', event: 'signup', data: { plan: 'pro' } }, CONCURRENCY, SECONDS);
    console.log(`track bench, concurrency ${CONCURRENCY}, ${SECONDS}s each`);
    console.log(`  floor (same SQL, node loop): ${fmt(floor)}`);
    console.log(`  POST /v1/track            : ${fmt(route)}`);
    console.log(`  route / floor             : ${((route.perSecond / floor.perSecond) * 100).toFixed(0)}%  (target >= 50%)`);
  } finally {
    await stack.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
