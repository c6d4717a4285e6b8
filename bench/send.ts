/**
 * POST /v1/send at concurrency 32, side by side with its floor: the raw rate of starting a no-op
 * workflow on the same Temporal server. No worker runs during the measurement, so both sides
 * measure the API path alone (deliveries would otherwise compete for the same two cores). The
 * sides alternate (stack.ts sideBySide): the dev server slows as unworked workflows pile up, which
 * would otherwise count against whichever side runs second.
 * Afterwards the worker starts and delivers the measured emails (log transport), and the bench
 * prints the Temporal actions per transactional email: everything the measured project's runs did
 * (each `deliverEmail`, and the routing of its `email.sent` event). The warm-up sends from a
 * project of its own and the floor's no-op runs carry no project, so neither is counted.
 * Usage: npx tsx bench/send.ts [seconds]
 */
import crypto from 'node:crypto';
import { startStack, runLoad, runRemoteLoad, postJson, benchProject, sideBySide, reportSideBySide, BenchStack, startWorkerProcess, stopWorkerProcess } from './stack';
import { countActions, formatActions, untilClosed } from './actions';

const SECONDS = Number(process.argv[2] ?? 15);
const CONCURRENCY = 32;

const verifiedDomain = (stack: BenchStack, projectId: string) =>
  stack.knex('domains').insert({ id: crypto.randomUUID(), project_id: projectId, domain: 'bench.example', token: 't', status: 'VERIFIED', records: '[]', verified_at: new Date() });

async function main() {
  const stack = await startStack({ RATE_LIMIT_PER_MINUTE: '100000000' });
  let worker: ReturnType<typeof startWorkerProcess> | null = null;
  try {
    const warm = await benchProject(stack);
    const p = await benchProject(stack);
    await verifiedDomain(stack, warm.projectId);
    await verifiedDomain(stack, p.projectId);
    const client = await stack.temporal.client();
    const body = (i: number | string) => ({ to: `user${typeof i === 'number' ? i % 5000 : i}@bench.example`, from: 'hi@bench.example', subject: 'Hello {{ name ?? "there" }}', body: '<p>Hi {{ name ?? "there" }}</p>', data: { name: 'Ann' } });
    await runLoad((i) => postJson(`${stack.url}/v1/send`, body(i), { authorization: `Bearer ${warm.secretKey}` }), CONCURRENCY, 2);

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

    // Now deliver what the route queued, and count what that cost Temporal.
    worker = startWorkerProcess(stack, { EMAIL_TRANSPORT: 'log', SEND_RATE_PER_SECOND: '1000000' });
    const mine = `ProjectId = '${p.projectId}'`;
    for (;;) {
      const [{ n }] = await stack.knex('emails').where({ project_id: p.projectId, status: 'QUEUED' }).count({ n: '*' });
      if (Number(n) === 0) break;
      if (worker.exitCode !== null) throw new Error('the worker exited');
      await new Promise((r) => setTimeout(r, 250));
    }
    await untilClosed(client, mine);
    const [{ n: emails }] = await stack.knex('emails').where({ project_id: p.projectId }).count({ n: '*' });
    const tally = await countActions(client, mine);
    console.log(`  ${'Temporal actions'.padEnd('floor (no-op workflow start)'.length)} : ${formatActions(tally.total, Number(emails), 'email', 0.1)}, ${tally.executions} executions`);
  } finally {
    await stopWorkerProcess(worker);
    await stack.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
