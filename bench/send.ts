/**
 * POST /v1/send at concurrency 32, side by side with its floor: the raw rate of starting a no-op
 * workflow on the same Temporal server. No worker runs during the measurement, so both sides
 * measure the API path alone (deliveries would otherwise compete for the same two cores). The
 * sides alternate (stack.ts sideBySide): the dev server slows as unworked workflows pile up, which
 * would otherwise count against whichever side runs second.
 * Usage: npx tsx bench/send.ts [seconds]
 */
import crypto from 'node:crypto';
import { startStack, runLoad, runRemoteLoad, postJson, benchProject, sideBySide, reportSideBySide } from './stack';

const SECONDS = Number(process.argv[2] ?? 15);
const CONCURRENCY = 32;

async function main() {
  const stack = await startStack({ RATE_LIMIT_PER_MINUTE: '100000000' });
  try {
    const p = await benchProject(stack);
    await stack.knex('domains').insert({ id: crypto.randomUUID(), project_id: p.projectId, domain: 'bench.example', token: 't', status: 'VERIFIED', records: '[]', verified_at: new Date() });
    const client = await stack.temporal.client();
    const body = (i: number | string) => ({ to: `user${typeof i === 'number' ? i % 5000 : i}@bench.example`, from: 'hi@bench.example', subject: 'Hello {{ name ?? "there" }}', body: '<p>Hi {{ name ?? "there" }}</p>', data: { name: 'Ann' } });
    await runLoad((i) => postJson(`${stack.url}/v1/send`, body(i), { authorization: `Bearer ${p.secretKey}` }), CONCURRENCY, 2);

    const result = await sideBySide(
      (seconds) =>
        runLoad(async () => {
          await client.workflow.start('noop', { taskQueue: 'bench-noop', workflowId: `noop-${crypto.randomUUID()}`, args: [] });
          return true;
        }, CONCURRENCY, seconds),
      // The HTTP client runs in its own process so it does not share the API's event loop.
      (seconds) => runRemoteLoad(`${stack.url}/v1/send`, `Bearer ${p.secretKey}`, body('{i}'), CONCURRENCY, seconds),
      SECONDS,
      { Temporal: stack.server.process.pid },
    );
    console.log(`send bench, concurrency ${CONCURRENCY}, ${SECONDS}s each (ABBA slices), one recipient per request`);
    reportSideBySide({ floor: 'floor (no-op workflow start)', route: 'POST /v1/send' }, result, 70);
  } finally {
    await stack.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
