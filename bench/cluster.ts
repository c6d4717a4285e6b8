/**
 * The capacity model (docs/capacity.md) against the production shape: `startCluster` (a Temporal
 * server on Postgres, 1 API, 1 inbound server, W worker processes) on a private Postgres, sending
 * into the local SendGrid sink, once with one worker and once with two. For each it prints:
 *   - a campaign of N recipients (default 20,000): emails/s from send to SENT, per worker, CPU ms
 *     per 1,000 emails of each process (API, each worker, the Temporal server, every postgres
 *     process on the machine, this process: the sink and the polling), how busy the machine was;
 *   - executions: N_EXEC tracked events (default 1,000) each starting an execution of an enabled
 *     trigger → WAIT_FOR_EVENT workflow, timed until all are WAITING, with the same CPU split;
 *   - side by side with the model's prediction from its cost table: a machine-bound run reaches
 *     (2 cores × 1000 ms) / (machine ms per unit) per second, a worker-bound one 1000 / (worker ms
 *     per unit) per worker; and which bound the measurement looks like.
 * Each configuration gets a fresh Postgres, sink and cluster, so the second run does not inherit
 * the first one's rows, histories or warm caches.
 * Usage: npx tsx bench/cluster.ts [N] [N_EXEC]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { createKnex } from '../db/knex';
import { startCluster, Cluster } from '../scripts/cluster';
import { freePortRange, ROOT } from '../scripts/temporalServer';
import { startPrivatePostgres, PrivatePostgres } from '../test/cluster/privatePostgres';
import { bearer, buildWorkflow, call, ClusterProject, createProject, pool, sinkClusterEnv } from '../test/cluster/clusterClient';
import { startSendgridSink, SendgridSink } from '../test/helpers/sendgridSink';
import { cpuMeter, CpuReport, formatCpu } from './cpu';
import { benchVerifiedDomain, NEWSLETTER, seedContacts } from './stack';

const N = Number(process.argv[2] ?? 20_000);
const N_EXEC = Number(process.argv[3] ?? 1_000);
const WARM_RECIPIENTS = 1_000;
const WORKER_COUNTS = [1, 2];
const TRACK_CONCURRENCY = 32;
const DOMAIN = 'bench.example';
// The same newsletter as bench/campaign.ts, so the per-email figures compare.
const { subject: SUBJECT, body: BODY } = NEWSLETTER;
const TRIGGER = 'bench.signup';
const AWAITED = 'bench.purchase';
const CORES = os.cpus().length;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ───────────────────────────── the model ─────────────────────────────

interface ModelRow {
  api: number;
  worker: number;
  temporal: number;
  postgres: number;
  total: number;
}

/** A row of docs/capacity.md's cost table (ms per unit), read from the doc so the bench compares with what it says now. */
function modelRow(unit: string): ModelRow {
  const doc = fs.readFileSync(path.join(ROOT, 'docs/capacity.md'), 'utf8');
  const line = doc.split('\n').find((l) => l.startsWith(`| ${unit}`));
  if (!line) throw new Error(`docs/capacity.md has no "${unit}" row`);
  const ms = line
    .split('|')
    .slice(2, 7)
    .map((cell) => Number(/([\d.]+)\s*ms/.exec(cell)?.[1] ?? Number.NaN));
  const [api, worker, temporal, postgres, total] = ms;
  return { api, worker, temporal, postgres, total };
}

/** Units/s the model predicts with `workers` workers: the lower of the machine's and the workers' bound. */
function predict(m: ModelRow, workers: number) {
  const machine = (CORES * 1000) / m.total;
  const worker = (1000 / m.worker) * workers;
  return { machine, worker, rate: Math.min(machine, worker), bound: machine < worker ? 'machine' : 'worker' };
}

// ───────────────────────────── setup ─────────────────────────────

interface Run {
  pg: PrivatePostgres;
  sink: SendgridSink;
  cluster: Cluster;
  knex: Knex;
  api: string;
  workers: number;
}

async function startRun(workers: number, dataDir: string, pg: PrivatePostgres, sink: SendgridSink): Promise<Cluster> {
  const [temporalPort, apiPort, inboundPort, submissionPort] = [
    await freePortRange(10),
    await freePortRange(1),
    await freePortRange(1),
    await freePortRange(1),
  ];
  return startCluster({
    apis: 1,
    workers,
    inbound: 1,
    submission: 1,
    ui: false,
    log: (line) => console.error(`  [cluster] ${line}`),
    env: sinkClusterEnv({ databaseUrl: pg.url('svc'), temporalPort, apiPort, inboundPort, submissionPort, dataDir, sinkUrl: sink.url }),
  });
}

/** A project with a verified domain and `n` contacts. */
async function campaignProject(run: Run, n: number): Promise<ClusterProject> {
  const p = await createProject(run.api, run.api);
  await benchVerifiedDomain(run, p.projectId, DOMAIN);
  await seedContacts(run, p.projectId, n);
  return p;
}

/** The CPU roots of the cluster's processes, by the names the report prints. */
function roots(run: Run): Record<string, number | undefined> {
  const out: Record<string, number | undefined> = { API: run.cluster.pid('api-0'), Temporal: run.cluster.pid('temporal') };
  for (let i = 0; i < run.workers; i++) out[`worker-${i}`] = run.cluster.pid(`worker-${i}`);
  return out;
}

// ───────────────────────────── the two loads ─────────────────────────────

interface Measured {
  units: number;
  seconds: number;
  cpu: CpuReport;
}

/** Sends a MARKETING campaign to every contact of the project and waits for SENT; the sink's bodies are dropped as they come so memory stays flat. */
async function sendCampaign(run: Run, p: ClusterProject): Promise<Measured> {
  const auth = bearer(p.secretKey);
  const created = await call(run.api, 'POST', '/campaigns', {
    headers: auth,
    body: { name: 'bench', subject: SUBJECT, body: BODY, from: `news@${DOMAIN}`, audienceType: 'ALL' },
  });
  if (created.status !== 201) throw new Error(`create campaign: ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.data.id as string;
  let delivered = 0;
  const meter = cpuMeter(roots(run));
  const t0 = performance.now();
  const sent = await call(run.api, 'POST', `/campaigns/${id}/send`, { headers: auth, body: {} });
  if (sent.status !== 200) throw new Error(`send campaign: ${sent.status} ${JSON.stringify(sent.body)}`);
  for (;;) {
    delivered += run.sink.recipientCount();
    run.sink.clear();
    const row = await run.knex('campaigns').where({ id }).first('status', 'sent_count', 'total_recipients');
    if (row.status === 'SENT') {
      const seconds = (performance.now() - t0) / 1000;
      const cpu = meter.stop();
      delivered += run.sink.recipientCount();
      run.sink.clear();
      if (row.sent_count !== row.total_recipients) throw new Error(`campaign SENT with ${row.sent_count}/${row.total_recipients} sent`);
      // A check, not a measurement: the figures are only worth printing if every email reached the provider.
      if (delivered < row.sent_count) console.error(`  warning: the sink got ${delivered} of ${row.sent_count} recipients`);
      return { units: row.sent_count, seconds, cpu };
    }
    if (performance.now() - t0 > 15 * 60_000) throw new Error(`campaign not SENT after 15 minutes (${row.status}, ${row.sent_count} sent)`);
    await sleep(100);
  }
}

async function waitingCount(knex: Knex, workflowId: string): Promise<number> {
  const row = await knex('workflow_executions').where({ workflow_id: workflowId, status: 'WAITING' }).count({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

/** Polls until `target` executions wait; gives up when the count has not moved for two minutes. */
async function untilWaiting(knex: Knex, workflowId: string, target: number): Promise<void> {
  let last = -1;
  let lastChange = performance.now();
  for (;;) {
    const n = await waitingCount(knex, workflowId);
    if (n >= target) return;
    if (n !== last) [last, lastChange] = [n, performance.now()];
    if (performance.now() - lastChange > 120_000) throw new Error(`executions stuck at ${n}/${target} WAITING`);
    await sleep(200);
  }
}

/** One warm-up execution, then `n` tracked triggers at concurrency 32, timed until all `n` wait. */
async function startExecutions(run: Run, n: number): Promise<Measured> {
  const p = await createProject(run.api, run.api);
  const wf = await buildWorkflow(run.api, p, TRIGGER, { wait: { type: 'WAIT_FOR_EVENT', config: { eventName: AWAITED } } }, [['trigger', 'wait']]);
  const track = async (email: string) => {
    const r = await call(run.api, 'POST', '/v1/track', { headers: bearer(p.publicKey), body: { email, event: TRIGGER } });
    if (r.status !== 200) throw new Error(`track: ${r.status} ${JSON.stringify(r.body)}`);
  };
  await track('warm@bench.example');
  await untilWaiting(run.knex, wf.id, 1);
  const emails = Array.from({ length: n }, (_, i) => `exec${i}@bench.example`);
  const meter = cpuMeter(roots(run));
  const t0 = performance.now();
  await pool(emails, TRACK_CONCURRENCY, track);
  await untilWaiting(run.knex, wf.id, n + 1);
  return { units: n, seconds: (performance.now() - t0) / 1000, cpu: meter.stop() };
}

// ───────────────────────────── one configuration ─────────────────────────────

interface Result {
  workers: number;
  campaign: Measured;
  executions?: Measured;
  executionError?: string;
}

/** A fresh Postgres, sink and cluster with `workers` workers; everything it started is stopped before it returns or throws. */
async function measure(workers: number): Promise<Result> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cluster-bench-'));
  let pg: PrivatePostgres | undefined;
  let sink: SendgridSink | undefined;
  let cluster: Cluster | undefined;
  let knex: Knex | undefined;
  try {
    [pg, sink] = await Promise.all([startPrivatePostgres(), startSendgridSink()]);
    console.error(`${workers} worker(s): starting the cluster`);
    cluster = await startRun(workers, dataDir, pg, sink);
    knex = createKnex(pg.url('svc'), { max: 5 });
    const run: Run = { pg, sink, cluster, knex, api: cluster.apiUrls[0], workers };
    const warm = await campaignProject(run, WARM_RECIPIENTS);
    const timed = await campaignProject(run, N);
    // Warm-up: bundle load, connections, JIT, the first continue-as-new, on a project of its own.
    const w = await sendCampaign(run, warm);
    console.error(`  warm-up campaign: ${w.units} emails in ${w.seconds.toFixed(2)} s`);
    const campaign = await sendCampaign(run, timed);
    console.error(
      `  campaign: ${campaign.units} emails in ${campaign.seconds.toFixed(2)} s; ${formatCpu(campaign.cpu, { count: campaign.units / 1000, unit: '1000' })}`,
    );
    const result: Result = { workers, campaign };
    if (N_EXEC > 0) {
      // Optional part: a failure here is reported beside the campaign's figures rather than losing them.
      try {
        result.executions = await startExecutions(run, N_EXEC);
        const x = result.executions;
        console.error(`  executions: ${x.units} WAITING in ${x.seconds.toFixed(2)} s; ${formatCpu(x.cpu, { count: x.units / 1000, unit: '1000' })}`);
      } catch (err: any) {
        result.executionError = err?.message ?? String(err);
        console.error(`  executions failed: ${result.executionError}`);
      }
    }
    return result;
  } finally {
    await knex?.destroy();
    await cluster?.stop();
    await sink?.stop();
    pg?.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

// ───────────────────────────── the report ─────────────────────────────

const pad = (s: string, n = 14) => s.padStart(n);

/** Workers' CPU as a share of one core each, and the busiest of them. */
function workerBusy(m: Measured, workers: number): number[] {
  return Array.from({ length: workers }, (_, i) => m.cpu.parts[`worker-${i}`] / m.seconds);
}

/** What the run looks bound by: a worker near a full core, the machine near all its cores, or neither. */
function boundOf(m: Measured, workers: number): string {
  const busiest = Math.max(...workerBusy(m, workers));
  const worker = busiest >= 0.85;
  const machine = m.cpu.machine >= 0.85;
  if (worker && machine) return 'worker and machine (both near full)';
  if (worker) return 'worker-bound';
  if (machine) return 'machine-bound';
  return 'neither near full (latency or coordination)';
}

function table(title: string, unit: string, model: ModelRow, rows: { workers: number; m: Measured }[]) {
  const cols = rows.map((r) => `${r.workers} worker${r.workers > 1 ? 's' : ''}`);
  const line = (label: string, cells: string[]) => console.log(`  ${label.padEnd(34)}${cells.map((c) => pad(c)).join('')}`);
  const perK = (m: Measured, part: string) => ((m.cpu.parts[part] ?? 0) * 1000) / (m.units / 1000);
  console.log(`\n${title}`);
  line('', cols);
  line(
    `${unit}/s`,
    rows.map((r) => (r.m.units / r.m.seconds).toFixed(0)),
  );
  line(
    `${unit}/s per worker`,
    rows.map((r) => (r.m.units / r.m.seconds / r.workers).toFixed(0)),
  );
  line(
    'seconds',
    rows.map((r) => r.m.seconds.toFixed(2)),
  );
  console.log(`  CPU ms per 1,000 ${unit}:`);
  line(
    '  API',
    rows.map((r) => perK(r.m, 'API').toFixed(0)),
  );
  line(
    '  workers (sum)',
    rows.map((r) =>
      Array.from({ length: r.workers }, (_, i) => perK(r.m, `worker-${i}`))
        .reduce((a, b) => a + b, 0)
        .toFixed(0),
    ),
  );
  line(
    '  Temporal server',
    rows.map((r) => perK(r.m, 'Temporal').toFixed(0)),
  );
  line(
    '  Postgres (all postgres processes)',
    rows.map((r) => perK(r.m, 'Postgres').toFixed(0)),
  );
  line(
    '  this process (sink, polling)',
    rows.map((r) => perK(r.m, 'this process').toFixed(0)),
  );
  line(
    '  machine total (busy × cores)',
    rows.map((r) => ((r.m.cpu.machine * CORES * r.m.seconds * 1000) / (r.m.units / 1000)).toFixed(0)),
  );
  line(
    'worker busy (% of a core each)',
    rows.map((r) =>
      workerBusy(r.m, r.workers)
        .map((b) => (b * 100).toFixed(0))
        .join('/'),
    ),
  );
  line(
    `machine busy (% of ${CORES} cores)`,
    rows.map((r) => `${(r.m.cpu.machine * 100).toFixed(0)} %`),
  );
  line(
    'looks',
    rows.map((r) => boundOf(r.m, r.workers).split(' ')[0]),
  );
  for (const r of rows) console.log(`  ${r.workers} worker(s): ${boundOf(r.m, r.workers)}`);
  console.log(
    `  model (docs/capacity.md, ms per ${unit}: API ${model.api}, worker ${model.worker}, Temporal ${model.temporal}, Postgres ${model.postgres}, machine ${model.total}):`,
  );
  line(
    '  predicted machine bound /s',
    rows.map((r) => predict(model, r.workers).machine.toFixed(0)),
  );
  line(
    '  predicted worker bound /s',
    rows.map((r) => predict(model, r.workers).worker.toFixed(0)),
  );
  line(
    '  predicted /s (the lower)',
    rows.map((r) => `${predict(model, r.workers).rate.toFixed(0)} ${predict(model, r.workers).bound}`),
  );
  line(
    '  measured / predicted',
    rows.map((r) => `${((r.m.units / r.m.seconds / predict(model, r.workers).rate) * 100).toFixed(0)} %`),
  );
}

async function main() {
  const results: Result[] = [];
  for (const workers of WORKER_COUNTS) results.push(await measure(workers));
  console.log(`\ncluster bench: npm run cluster's shape (1 API, 1 inbound, Temporal server on Postgres), private Postgres, SendGrid sink, ${CORES} cores`);
  table(
    `campaign of ${N} recipients (send → SENT), ~2 KB Liquid body`,
    'emails',
    modelRow('campaign email'),
    results.map((r) => ({ workers: r.workers, m: r.campaign })),
  );
  const exec = results.filter((r) => r.executions);
  if (exec.length)
    table(
      `${N_EXEC} executions started (/v1/track → all WAITING on WAIT_FOR_EVENT), track concurrency ${TRACK_CONCURRENCY}`,
      'executions',
      modelRow('execution started'),
      exec.map((r) => ({ workers: r.workers, m: r.executions! })),
    );
  for (const r of results) if (r.executionError) console.log(`executions with ${r.workers} worker(s) failed: ${r.executionError}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
