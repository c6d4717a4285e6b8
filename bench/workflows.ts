/**
 * Automation workflows at scale, through the real trigger path: N contacts each track a trigger
 * event (POST /v1/track → routeEvent → a `workflowExecution` per contact) and park on a
 * WAIT_FOR_EVENT; then each tracks the awaited event (→ routeEvent → signal). Prints:
 *   - executions started per second (first track → all N WAITING in Postgres),
 *   - signals routed per second (first awaited event → all N COMPLETED),
 *   - the worker process's RSS while the N executions wait,
 *   - side by side, the floor: raw `client.workflow.start` of the no-op workflow on the same server
 *     at the same concurrency (accepted/s, and until the worker has run them all),
 *   - the Temporal actions per execution and per execution step, counted at the end from the
 *     histories of the project's runs (executions and the routing of both tracked events) from the
 *     first trigger on: the warm-up's runs closed before that, and the floor's no-op runs carry no
 *     project.
 * The worker runs in its own process (worker/worker.ts), as in production.
 * Usage: npx tsx bench/workflows.ts [N] [--memory]   (default 10,000)
 *   --memory: stop once the N executions wait, and print the worker's RSS then (idle, and the peak
 *   while they started) with its cache and bundle settings: memory does not depend on the machine
 *   being idle, so this part can be measured when the rates cannot.
 */
import fs from 'node:fs';
import crypto from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { startStack, postJson, benchProject, BenchStack, startWorkerProcess, stopWorkerProcess } from './stack';
import { cpuMeter, formatCpu } from './cpu';
import { countActions, formatActions, untilClosed } from './actions';

const args = process.argv.slice(2);
const MEMORY_ONLY = args.includes('--memory');
const N = Number(args.find((a) => /^\d+$/.test(a)) ?? 10_000);
const CONCURRENCY = 32;
const TRIGGER = 'bench.signup';
const AWAITED = 'bench.purchase';

/** Resident memory of a process and its descendants (tsx may run the worker in a child), in MB. */
function rssMb(root: number): number {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // exited while we looked
    }
  }
  let kb = 0;
  const pids = [root];
  for (let i = 0; i < pids.length; i++) {
    pids.push(...(children.get(pids[i]) ?? []));
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pids[i]}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // exited
    }
  }
  return kb / 1024;
}

/** Runs `op(0..n-1)` from `concurrency` loops. */
async function pool(n: number, concurrency: number, op: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await op(next++);
    }),
  );
}

async function statusCounts(stack: BenchStack, workflowId: string): Promise<Record<string, number>> {
  const rows = await stack.knex('workflow_executions').where({ workflow_id: workflowId }).groupBy('status').select('status').count({ n: '*' });
  return Object.fromEntries(rows.map((r: any) => [r.status, Number(r.n)]));
}

/** Polls until `count` reaches `target`; the time it took from `t0`, in seconds. */
async function until(t0: number, target: number, count: () => Promise<number>, what: string, exited: () => boolean): Promise<number> {
  let last = -1;
  let lastChange = performance.now();
  for (;;) {
    const n = await count();
    if (n >= target) return (performance.now() - t0) / 1000;
    if (n !== last) [last, lastChange] = [n, performance.now()];
    if (exited()) throw new Error('the worker exited');
    if (performance.now() - lastChange > 120_000) throw new Error(`${what}: stuck at ${n}/${target}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function api(stack: BenchStack, key: string, method: string, url: string, body?: unknown) {
  const res = await fetch(`${stack.url}${url}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<any>;
}

/** trigger → WAIT_FOR_EVENT(AWAITED), enabled. */
async function createWorkflow(stack: BenchStack, key: string): Promise<string> {
  const wf = await api(stack, key, 'POST', '/workflows', { name: 'bench', eventName: TRIGGER });
  const wait = await api(stack, key, 'POST', `/workflows/${wf.id}/steps`, { type: 'WAIT_FOR_EVENT', config: { eventName: AWAITED } });
  await api(stack, key, 'POST', `/workflows/${wf.id}/transitions`, { fromStepId: wf.steps[0].id, toStepId: wait.id });
  await api(stack, key, 'PATCH', `/workflows/${wf.id}`, { enabled: true });
  return wf.id;
}

async function main() {
  const stack = await startStack({ RATE_LIMIT_PER_MINUTE: '100000000' });
  let worker: ChildProcess | null = null;
  try {
    const p = await benchProject(stack);
    const workflowId = await createWorkflow(stack, p.secretKey);
    worker = startWorkerProcess(stack);
    const exited = () => worker!.exitCode !== null;
    const rssIdle = () => rssMb(worker!.pid!);
    const auth = { authorization: `Bearer ${p.publicKey}` };
    const track = (i: number, event: string) => postJson(`${stack.url}/v1/track`, { email: `user${i}@bench.example`, event }, auth);
    const client = await stack.temporal.client();

    // Warm-up: one execution end to end (bundling, connections, JIT), then counted out.
    const warm = Date.now();
    await track(-1, TRIGGER);
    await until(performance.now(), 1, async () => (await statusCounts(stack, workflowId)).WAITING ?? 0, 'warm-up', exited);
    await track(-1, AWAITED);
    await until(performance.now(), 1, async () => (await statusCounts(stack, workflowId)).COMPLETED ?? 0, 'warm-up', exited);
    const rssBefore = rssIdle();
    console.error(`warm-up done in ${((Date.now() - warm) / 1000).toFixed(1)} s`);

    // The warm-up's runs (its execution, its routing) end before the actions counted begin.
    const mine = `ProjectId = '${p.projectId}'`;
    await untilClosed(client, mine);
    const since = new Date();

    const roots = { worker: worker.pid, Temporal: stack.server.process.pid };
    // 1. N triggers → N executions WAITING.
    let meter = cpuMeter(roots);
    let t0 = performance.now();
    let rssPeak = 0;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssIdle())), 500);
    await pool(N, CONCURRENCY, async (i) => {
      if (!(await track(i, TRIGGER))) throw new Error('track failed');
    });
    const trackSeconds = (performance.now() - t0) / 1000;
    const startSeconds = await until(t0, N, async () => (await statusCounts(stack, workflowId)).WAITING ?? 0, 'starting', exited);
    const startCpu = meter.stop();
    clearInterval(sampler);
    let rssWaiting = 0;
    for (let s = 0; s < 5; s++) {
      rssWaiting = Math.max(rssWaiting, rssIdle());
      await new Promise((r) => setTimeout(r, 200));
    }
    if (MEMORY_ONLY) {
      const cached = process.env.TEMPORAL_MAX_CACHED_WORKFLOWS ?? '100 (default)';
      const bundle = process.env.WORKFLOW_BUNDLE ?? 'prebuilt when current (default)';
      console.log(`workflows bench, memory only: ${N} executions waiting (trigger → WAIT_FOR_EVENT), worker in its own process`);
      console.log(
        `  settings             : TEMPORAL_MAX_CACHED_WORKFLOWS=${cached}, WORKFLOW_BUNDLE=${bundle}, node args '${process.env.BENCH_WORKER_NODE_ARGS ?? ''}', MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX ?? 'unset'}`,
      );
      console.log(
        `  worker RSS           : ${rssBefore.toFixed(0)} MB idle after warm-up, ${rssWaiting.toFixed(0)} MB with ${N} waiting, ${rssPeak.toFixed(0)} MB peak while they started`,
      );
      console.log(`  target               : ≤ 400 MB with ${N} waiting → ${rssWaiting <= 400 ? 'met' : 'not met'}`);
      return;
    }

    // 2. N awaited events → N signals → N COMPLETED.
    meter = cpuMeter(roots);
    t0 = performance.now();
    await pool(N, CONCURRENCY, async (i) => {
      if (!(await track(i, AWAITED))) throw new Error('track failed');
    });
    const signalSeconds = await until(t0, N + 1, async () => (await statusCounts(stack, workflowId)).COMPLETED ?? 0, 'signalling', exited);
    const signalCpu = meter.stop();

    // 3. Floor: raw starts of the no-op workflow on the same server and task queue.
    const run = crypto.randomBytes(3).toString('hex');
    meter = cpuMeter(roots);
    t0 = performance.now();
    await pool(N, CONCURRENCY, async (i) => {
      await client.workflow.start('noop', { taskQueue: stack.config.temporal.taskQueue, workflowId: `noop-${run}-${i}`, args: [] });
    });
    const rawStartSeconds = (performance.now() - t0) / 1000;
    const rawStartCpu = meter.stop();
    const closedNoops = async () => (await client.workflow.count(`WorkflowType = "noop" AND ExecutionStatus = "Completed"`)).count;
    const rawDoneSeconds = await until(t0, N, closedNoops, 'noop', exited);
    const rawDoneCpu = meter.stop();

    await untilClosed(client, mine);
    const actions = await countActions(client, mine, { since });
    const [{ n: steps }] = await stack
      .knex('workflow_execution_steps as s')
      .join('workflow_executions as e', 'e.id', 's.execution_id')
      .join('contacts as c', 'c.id', 'e.contact_id')
      .where('e.workflow_id', workflowId)
      .whereNot('c.email', 'user-1@bench.example')
      .count({ n: '*' });

    const rate = (s: number) => `${(N / s).toFixed(0).padStart(6)}/s`;
    console.log(`workflows bench: ${N} executions (trigger → WAIT_FOR_EVENT), track concurrency ${CONCURRENCY}, worker in its own process`);
    console.log(
      `  executions started   : ${rate(startSeconds)}   ${startSeconds.toFixed(2)} s from the first trigger to ${N} WAITING (the ${N} tracks took ${trackSeconds.toFixed(2)} s)`,
    );
    console.log(`  signals routed       : ${rate(signalSeconds)}   ${signalSeconds.toFixed(2)} s from the first awaited event to ${N} COMPLETED`);
    console.log(`  worker RSS           : ${rssBefore.toFixed(0)} MB idle after warm-up, ${rssWaiting.toFixed(0)} MB with ${N} executions waiting`);
    console.log(
      `  floor: noop starts   : ${rate(rawStartSeconds)}   ${rawStartSeconds.toFixed(2)} s of client.workflow.start; ${rate(rawDoneSeconds)} until the worker completed them (${rawDoneSeconds.toFixed(2)} s)`,
    );
    console.log(
      `  started / floor      : ${((rawStartSeconds / startSeconds) * 100).toFixed(0)}% of raw starts, ${((rawDoneSeconds / startSeconds) * 100).toFixed(0)}% of raw start-and-run`,
    );
    console.log(`  Temporal actions     : ${formatActions(actions.total, N, 'execution')}, ${actions.executions} runs`);
    console.log(`    per execution step : ${formatActions(actions.total, Number(steps), 'step')}`);
    const per = { count: N, unit: 'execution' };
    console.log(`  CPU, starting        : ${formatCpu(startCpu, per)} (this process: the API)`);
    console.log(`  CPU, signalling      : ${formatCpu(signalCpu, per)}`);
    console.log(`  CPU, raw starts      : ${formatCpu(rawStartCpu, per)} (this process: the starting client)`);
    console.log(`  CPU, raw start + run : ${formatCpu(rawDoneCpu, per)}`);
  } finally {
    await stopWorkerProcess(worker);
    await stack.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
