/**
 * Transactional email under mixed load (issue 20): twelve POST /v1/track clients beside four
 * POST /v1/send clients for N seconds, the worker in its own process, deliveries to the local
 * SendGrid sink. Prints track and send req/s, the p50/p99 of the time from each send's 200 to the
 * sink's accept of that email, and how long after the load stopped the last delivery arrived.
 * Sends go through the batched hand-off (deliverEmailBatch) on the worker's one task queue.
 * The load starts once the warm-up's emails are all delivered, and the batch waits it prints are
 * those of batches started under the load, so a worker's first, slower tasks are not counted.
 * The track clients run in a child process (bench/loadClient.ts); the send clients run here, since
 * each answer's email id is needed to match it with its delivery.
 * Usage: npx tsx bench/mixed.ts [seconds]
 */
import crypto from 'node:crypto';
import {
  startStack,
  runRemoteLoad,
  runLoad,
  postJson,
  benchProject,
  BenchStack,
  startWorkerProcess,
  stopWorkerProcess,
  fmt,
  LoadResult,
  percentile,
  benchVerifiedDomain,
} from './stack';
import { startSendgridSink } from '../test/helpers/sendgridSink';
import { temporal } from '@temporalio/proto';
import { optionalTsToMs } from '@temporalio/common/lib/time';

const SECONDS = Number(process.argv[2] ?? 60);
const TRACK_CLIENTS = 12;
const SEND_CLIENTS = 4;

/** Where a delivery batch's time went, from its histories: p50 / p99 of each hop, in seconds, for batches started since `since` (epoch ms). */
async function printBatchWaits(stack: BenchStack, since: number) {
  const client = await stack.temporal.client();
  const hops: Record<string, number[]> = {
    'start → workflow task': [],
    'activity scheduled → started': [],
    'activity run': [],
    'start → activity started': [],
  };
  const T = temporal.api.enums.v1.EventType;
  // When the slowest batches started: a cluster at one moment is a stall, a spread is queueing.
  const slowest: { started: number; wait: number }[] = [];
  for await (const w of client.workflow.list({ query: `WorkflowType = 'deliverEmailBatch'` })) {
    const events = (await client.workflow.getHandle(w.workflowId, w.runId).fetchHistory()).events ?? [];
    const t = (type: number) => optionalTsToMs(events.find((e) => e.eventType === type)?.eventTime) ?? NaN;
    const started = t(T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED);
    if (started < since) continue;
    slowest.push({ started, wait: t(T.EVENT_TYPE_ACTIVITY_TASK_COMPLETED) - started });
    hops['start → workflow task'].push(t(T.EVENT_TYPE_WORKFLOW_TASK_STARTED) - started);
    hops['activity scheduled → started'].push(t(T.EVENT_TYPE_ACTIVITY_TASK_STARTED) - t(T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED));
    hops['activity run'].push(t(T.EVENT_TYPE_ACTIVITY_TASK_COMPLETED) - t(T.EVENT_TYPE_ACTIVITY_TASK_STARTED));
    hops['start → activity started'].push(t(T.EVENT_TYPE_ACTIVITY_TASK_STARTED) - started);
  }
  const routing: Record<string, number[]> = { 'routing start → workflow task': [], 'routing first task (its local activity)': [] };
  for await (const w of client.workflow.list({ query: `WorkflowType = 'routeEventBatch'` })) {
    const events = (await client.workflow.getHandle(w.workflowId, w.runId).fetchHistory()).events ?? [];
    const t = (type: number) => optionalTsToMs(events.find((e) => e.eventType === type)?.eventTime) ?? NaN;
    if (t(T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED) < since) continue;
    routing['routing start → workflow task'].push(t(T.EVENT_TYPE_WORKFLOW_TASK_STARTED) - t(T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED));
    routing['routing first task (its local activity)'].push(t(T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) - t(T.EVENT_TYPE_WORKFLOW_TASK_STARTED));
  }
  Object.assign(hops, routing);
  const top = slowest.sort((a, b) => b.wait - a.wait).slice(0, 5);
  console.log(
    `  slowest batches (start after the load's: start → delivered): ${top.map((b) => `+${((b.started - since) / 1000).toFixed(1)} s: ${(b.wait / 1000).toFixed(2)} s`).join(', ')}`,
  );
  for (const [hop, values] of Object.entries(hops)) {
    const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
    console.log(`  ${hop.padEnd(40)}: p50 ${(percentile(v, 50) / 1000).toFixed(2)} s   p99 ${(percentile(v, 99) / 1000).toFixed(2)} s   (${v.length} batches)`);
  }
}

async function main() {
  const sink = await startSendgridSink();
  const stack = await startStack({ RATE_LIMIT_PER_MINUTE: '100000000' });
  const worker = startWorkerProcess(stack, {
    EMAIL_TRANSPORT: 'sendgrid',
    SENDGRID_API_KEY: 'SG.bench',
    SENDGRID_API_URL: sink.url,
    SEND_RATE_PER_SECOND: '1000000',
  });
  try {
    const p = await benchProject(stack);
    await benchVerifiedDomain(stack, p.projectId);

    // When the sink accepted each recipient: polled, 5 ms resolution.
    const accepted = new Map<string, number>();
    let seen = 0;
    const watch = setInterval(() => {
      const now = performance.now();
      for (; seen < sink.messages.length; seen++) accepted.set(sink.messages[seen].body.personalizations[0].to[0].email, now);
    }, 5);

    // Warm up both routes and the worker (its first workflow tasks load the bundle).
    const warm = (seconds: number) =>
      Promise.all([
        runLoad(
          (i) => postJson(`${stack.url}/v1/track`, { email: `warm${i}@bench.example`, event: 'warm' }, { authorization: `Bearer ${p.publicKey}` }),
          4,
          seconds,
        ),
        runLoad(
          (i) =>
            postJson(
              `${stack.url}/v1/send`,
              { to: `warm${i}@bench.example`, from: 'hi@bench.example', subject: 'Warm', body: '<p>Hi</p>' },
              { authorization: `Bearer ${p.secretKey}` },
            ),
          2,
          seconds,
        ),
      ]);
    /** Polls while `pending` holds, for at most `ms`; a worker that exits ends the bench. */
    const whilePending = async (pending: () => boolean | Promise<boolean>, ms: number) => {
      const giveUp = performance.now() + ms;
      while ((await pending()) && performance.now() < giveUp) {
        if (worker.exitCode !== null) throw new Error('the worker exited');
        await new Promise((r) => setTimeout(r, 100));
      }
    };

    await warm(3);
    // Measured from a steady state: every warm-up email delivered (the worker's first tasks are slow).
    await whilePending(async () => Number((await stack.knex('emails').whereIn('status', ['QUEUED', 'SENDING']).count({ n: '*' }))[0].n) > 0, 120_000);

    // Each send has its own recipient, so the sink's record names the send it delivers.
    const answered = new Map<string, number>();
    const loadStarted = Date.now();
    let n = 0;
    const send = async () => {
      const to = `send${n++}-${crypto.randomBytes(3).toString('hex')}@bench.example`;
      const res = await fetch(`${stack.url}/v1/send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${p.secretKey}` },
        body: JSON.stringify({ to, from: 'hi@bench.example', subject: 'Your code {{ code }}', body: '<p>Reset code {{ code }}</p>', data: { code: '123456' } }),
      });
      await res.arrayBuffer();
      // runLoad counts a false answer as an error.
      if (res.status !== 200) return false;
      answered.set(to, performance.now());
      return true;
    };
    const [track, sends] = await Promise.all([
      runRemoteLoad(
        `${stack.url}/v1/track`,
        `Bearer ${p.publicKey}`,
        { email: 'user{i}@bench.example', event: 'signup', data: { plan: 'pro' } },
        TRACK_CLIENTS,
        SECONDS,
      ),
      runLoad(send, SEND_CLIENTS, SECONDS) as Promise<LoadResult>,
    ]);
    const stopped = performance.now();

    // Wait for every answered send to reach the sink (or give up after 10 minutes).
    await whilePending(() => [...answered.keys()].some((to) => !accepted.has(to)), 600_000);
    clearInterval(watch);
    const waits = [...answered]
      .filter(([to]) => accepted.has(to))
      .map(([to, at]) => accepted.get(to)! - at)
      .sort((a, b) => a - b);
    const lastAccept = Math.max(...[...answered.keys()].filter((to) => accepted.has(to)).map((to) => accepted.get(to)!));

    console.log(`mixed bench, ${SECONDS}s: ${TRACK_CLIENTS} /v1/track clients beside ${SEND_CLIENTS} /v1/send clients; batched deliveries`);
    console.log(`  POST /v1/track            : ${fmt(track)}`);
    console.log(`  POST /v1/send             : ${fmt(sends)}`);
    console.log(
      `  send 200 → sink accept    : p50 ${(percentile(waits, 50) / 1000).toFixed(2)} s   p99 ${(percentile(waits, 99) / 1000).toFixed(2)} s   max ${(waits[waits.length - 1] / 1000).toFixed(2)} s   (${waits.length} of ${answered.size} answered sends delivered)`,
    );
    console.log(`  last delivery after load  : ${((lastAccept - stopped) / 1000).toFixed(1)} s after the load stopped`);
    await printBatchWaits(stack, loadStarted);
  } finally {
    await stopWorkerProcess(worker);
    await stack.stop();
    await sink.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
