import path from 'node:path';
import { spawn, ChildProcess } from 'node:child_process';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { parseMetrics, valueOf } from '../helpers/metrics';
import { startDevServer, DevServer, freePort } from '../../worker/devServer';

/**
 * The real worker entrypoint (`tsx worker/worker.ts`) in its own process: the SDK runtime is
 * installed once per process, so its Prometheus exporter cannot be switched on inside jest's. It
 * gets a Temporal dev server of its own, because the entrypoint creates the global Schedules on
 * its task queue and must not move those of the run's shared server under other test files.
 */
const ROOT = path.resolve(__dirname, '..', '..');
const TOKEN = 'worker-metrics-token';
const TASK_QUEUE = 'metrics-worker';

let server: DevServer;
let worker: ChildProcess;
let output = '';
let h: Harness;
let p: ProjectFixture;
let sdkUrl: string;
let appUrl: string;

beforeAll(async () => {
  server = await startDevServer({ headless: true });
  const [sdkPort, appPort] = [await freePort(), await freePort()];
  sdkUrl = `http://127.0.0.1:${sdkPort}/metrics`;
  appUrl = `http://127.0.0.1:${appPort}/metrics`;
  worker = spawn(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['worker/worker.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_TASK_QUEUE: TASK_QUEUE,
      WORKER_METRICS_ADDRESS: `127.0.0.1:${sdkPort}`,
      WORKER_APP_METRICS_ADDRESS: `127.0.0.1:${appPort}`,
      METRICS_TOKEN: TOKEN,
      EMAIL_TRANSPORT: 'log',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  worker.stdout!.on('data', (d) => (output += d));
  worker.stderr!.on('data', (d) => (output += d));
  // The entrypoint bundles the workflow code before it polls; its app endpoint answers once it runs.
  await eventually(() => fetch(appUrl, { headers: bearer(TOKEN) }).then((r) => r.ok), 240_000, 250).catch((err) => {
    throw new Error(`${err.message}\nworker output:\n${output}`);
  });
  h = await startHarness({ env: { TEMPORAL_TASK_QUEUE: TASK_QUEUE }, temporalAddress: server.address });
  p = await createProjectFixture(h);
  await verifiedDomain(h, p.projectId, 'mail.example.com');
}, 300_000);

afterAll(async () => {
  await h?.stop();
  if (worker && worker.exitCode === null) {
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.kill('SIGTERM');
    await exited;
  }
  await server?.stop();
});

const scrape = async (url: string, headers: Record<string, string> = {}) => {
  const res = await fetch(url, { headers });
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return parseMetrics(await res.text());
};

describe('a worker process with WORKER_METRICS_ADDRESS and WORKER_APP_METRICS_ADDRESS', () => {
  it('serves the SDK metrics with its task queue, and its own counters of the work it did', async () => {
    const sends = 2;
    const res = await h.http
      .post('/v1/send')
      .set(bearer(p.secretKey))
      .send({ from: 'hello@mail.example.com', to: Array.from({ length: sends }, () => uniqueEmail()), subject: 'Hi', body: '<p>Hi</p>' });
    expect(res.status).toBe(200);
    const ids = res.body.data.emails.map((e: any) => e.email);
    await eventually(async () => (await h.deps.knex('emails').whereIn('id', ids).where({ status: 'SENT' })).length === sends, 120_000);

    // The SDK's exporter: workflow and activity task metrics labelled with the worker's task queue.
    // One request's recipients go in one batch workflow.
    const completed = (samples: ReturnType<typeof parseMetrics>) =>
      valueOf(samples, 'temporal_workflow_completed_total', { task_queue: TASK_QUEUE, workflow_type: 'deliverEmailBatch' });
    const sdk = await eventually(async () => {
      const samples = await scrape(sdkUrl);
      return completed(samples) === 1 && samples;
    }, 120_000);
    const names = new Set(sdk.filter((s) => s.labels.task_queue === TASK_QUEUE).map((s) => s.name));
    for (const name of [
      'temporal_workflow_task_schedule_to_start_latency_seconds_bucket',
      'temporal_workflow_task_execution_latency_seconds_bucket',
      'temporal_activity_schedule_to_start_latency_seconds_bucket',
      'temporal_activity_execution_latency_seconds_bucket',
      'temporal_sticky_cache_hit_total',
      'temporal_worker_task_slots_used',
    ]) {
      expect([...names]).toContain(name);
    }

    // The worker's own registry, from the process that handed the emails over; the API's process did none.
    expect((await fetch(appUrl)).status).toBe(401);
    expect((await fetch(appUrl, { headers: bearer('wrong') })).status).toBe(401);
    const app = await scrape(appUrl, bearer(TOKEN));
    expect(valueOf(app, 'svc_emails_handed_over_total', { transport: 'log', type: 'TRANSACTIONAL' })).toBe(sends);
    expect(valueOf(app, 'svc_db_pool_connections', { pool: 'worker', state: 'max' })).toBe(20);
    const api = parseMetrics((await h.http.get('/metrics')).text);
    expect(valueOf(api, 'svc_emails_handed_over_total', { transport: 'log', type: 'TRANSACTIONAL' })).toBe(0);
  }, 300_000);
});
