/**
 * POST /v1/send at concurrency 32, side by side with its floor: the raw rate of starting a no-op
 * workflow on the same Temporal server. No worker runs during the measurement, so both sides
 * measure the API path alone (deliveries would otherwise compete for the same two cores). The
 * sides alternate (stack.ts sideBySide): the dev server slows as unworked workflows pile up, which
 * would otherwise count against whichever side runs second.
 * Afterwards the worker starts and delivers the measured emails to a local SendGrid sink, and the
 * bench prints the Temporal actions per transactional email: everything the measured project's
 * runs did (each `deliverEmailBatch`, which also routes its `email.sent` events). The warm-up sends
 * from a project of its own and the floor's no-op runs carry no project, so neither is counted.
 * Last, with the worker running, a lighter load (concurrency 8) measures the time from each
 * answer to the sink's receipt of that email (p50, p99; issue 20 asks under one second).
 * Usage: npx tsx bench/send.ts [seconds]
 */
import crypto from 'node:crypto';
import {
  startStack,
  runLoad,
  runRemoteLoad,
  postJson,
  benchProject,
  sideBySide,
  reportSideBySide,
  startWorkerProcess,
  stopWorkerProcess,
  percentile,
  benchVerifiedDomain,
} from './stack';
import { countActions, formatActions, untilClosed } from './actions';
import { startSendgridSink } from '../test/helpers/sendgridSink';

const SECONDS = Number(process.argv[2] ?? 15);
const CONCURRENCY = 32;
const LATENCY_CONCURRENCY = 8;
const LATENCY_SECONDS = 10;

async function main() {
  const stack = await startStack({ RATE_LIMIT_PER_MINUTE: '100000000' });
  let worker: ReturnType<typeof startWorkerProcess> | null = null;
  try {
    const warm = await benchProject(stack);
    const p = await benchProject(stack);
    await benchVerifiedDomain(stack, warm.projectId);
    await benchVerifiedDomain(stack, p.projectId);
    const client = await stack.temporal.client();
    const body = (i: number | string) => ({
      to: `user${typeof i === 'number' ? i % 5000 : i}@bench.example`,
      from: 'hi@bench.example',
      subject: 'Hello {{ name ?? "there" }}',
      body: '<p>Hi {{ name ?? "there" }}</p>',
      data: { name: 'Ann' },
    });
    await runLoad((i) => postJson(`${stack.url}/v1/send`, body(i), { authorization: `Bearer ${warm.secretKey}` }), CONCURRENCY, 2);

    const result = await sideBySide(
      (seconds) =>
        runLoad(
          async () => {
            await client.workflow.start('noop', { taskQueue: 'bench-noop', workflowId: `noop-${crypto.randomUUID()}`, args: [] });
            return true;
          },
          CONCURRENCY,
          seconds,
        ),
      // The HTTP client runs in its own process so it does not share the API's event loop.
      (seconds) => runRemoteLoad(`${stack.url}/v1/send`, `Bearer ${p.secretKey}`, body('{i}'), CONCURRENCY, seconds),
      SECONDS,
      { Temporal: stack.server.process.pid },
    );
    console.log(`send bench, concurrency ${CONCURRENCY}, ${SECONDS}s each (ABBA slices), one recipient per request`);
    reportSideBySide({ floor: 'floor (no-op workflow start)', route: 'POST /v1/send' }, result, 70);

    // Now deliver what the route queued, and count what that cost Temporal.
    const sink = await startSendgridSink();
    worker = startWorkerProcess(stack, {
      EMAIL_TRANSPORT: 'sendgrid',
      SENDGRID_API_KEY: 'SG.bench',
      SENDGRID_API_URL: sink.url,
      SEND_RATE_PER_SECOND: '1000000',
    });
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
    console.log(
      `  ${'Temporal actions'.padEnd('floor (no-op workflow start)'.length)} : ${formatActions(tally.total, Number(emails), 'email', 0.1)}, ${tally.executions} executions`,
    );
    sink.clear();

    // From the answer to the provider, with the worker running beside the API.
    const answered = new Map<string, number>();
    const lat = await runLoad(
      async (i) => {
        const to = `lat${i}`;
        const ok = await postJson(`${stack.url}/v1/send`, body(to), { authorization: `Bearer ${p.secretKey}` });
        if (ok) answered.set(`user${to}@bench.example`, Date.now());
        return ok;
      },
      LATENCY_CONCURRENCY,
      LATENCY_SECONDS,
    );
    const arrivals = new Map<string, number>();
    const deadline = Date.now() + 120_000;
    while (arrivals.size < answered.size && Date.now() < deadline) {
      for (const m of sink.messages)
        for (const pz of m.body.personalizations ?? []) for (const t of pz.to ?? []) if (!arrivals.has(t.email)) arrivals.set(t.email, m.receivedAt);
      await new Promise((r) => setTimeout(r, 100));
    }
    const delays = [...answered].map(([to, at]) => (arrivals.get(to) ?? Infinity) - at).sort((a, b) => a - b);
    const p99 = percentile(delays, 99);
    console.log(
      `  ${'answer → sink'.padEnd('floor (no-op workflow start)'.length)} : p50 ${percentile(delays, 50).toFixed(0)} ms   p99 ${p99.toFixed(0)} ms   (${delays.length} sends at ${lat.perSecond.toFixed(0)}/s, concurrency ${LATENCY_CONCURRENCY}, ${answered.size - [...answered.keys()].filter((k) => arrivals.has(k)).length} not arrived; target p99 < 1000 ms: ${p99 < 1000 ? 'met' : 'NOT met'})`,
    );
    await sink.stop();
  } finally {
    await stopWorkerProcess(worker);
    await stack.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
