import crypto from 'node:crypto';
import request from 'supertest';
import type { Worker } from '@temporalio/worker';
import { loadConfig, Config } from '../../lib/config';
import { createLogger } from '../../lib/logger';
import { createKnex } from '../../db/knex';
import { createTemporalGateway } from '../../services/temporal';
import { createRuntime } from '../../services/runtime';
import { createWorker, StepPlugins } from '../../worker/worker';
import { buildApp, BuiltApp } from '../../api/app';
import type { Deps } from '../../api/context';

export interface Harness {
  deps: Deps;
  built: BuiltApp;
  http: ReturnType<typeof request>;
  config: Config;
  taskQueue: string;
  /** Starts (again) a real worker on this harness's task queue. */
  startWorker(): Promise<void>;
  stopWorker(): Promise<void>;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  worker?: boolean;
  env?: Record<string, string>;
  /** Defaults to the run's dev server. */
  temporalAddress?: string;
  /** Extra step types for the app and the worker (worker/worker.ts `StepPlugins`). */
  steps?: StepPlugins;
}

/**
 * The real app on the run's Postgres database and Temporal dev server, with (optionally) the real
 * worker in this process. Each test file gets its own task queue so files never steal each other's tasks.
 */
export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const taskQueue = `test-${crypto.randomBytes(4).toString('hex')}`;
  // The per-project send throttle stays out of the way unless a test sets its own rate (sendThrottle.test.ts does);
  // so does the per-address sign-in limit, as every file signs up from 127.0.0.1 into one shared table (auth.test.ts sets its own).
  const config = loadConfig({
    ...process.env,
    TEMPORAL_TASK_QUEUE: taskQueue,
    SEND_RATE_PER_SECOND: '1000000',
    AUTH_RATE_LIMIT_PER_MINUTE: '1000000',
    ...opts.env,
  });
  const log = createLogger(config.logLevel, 'test');
  const knex = createKnex(config.databaseUrl, { max: 20 });
  const temporal = createTemporalGateway(config, opts.temporalAddress ?? process.env.TEST_TEMPORAL_ADDRESS!);
  const deps: Deps = { config, knex, temporal, log, steps: opts.steps?.registry, runtime: createRuntime({ config, knex, temporal, log }) };
  const built = buildApp(deps);
  const http = request(built.app.callback());

  let running: { worker: Worker; done: Promise<void>; close: () => Promise<void> } | null = null;
  const harness: Harness = {
    deps,
    built,
    http,
    config,
    taskQueue,
    async startWorker() {
      if (running) return;
      const { worker, close } = await createWorker({
        config,
        knex,
        log,
        address: process.env.TEST_TEMPORAL_ADDRESS!,
        taskQueue,
        workflowBundlePath: process.env.TEST_WORKFLOW_BUNDLE,
        steps: opts.steps,
      });
      const done = worker.run();
      running = { worker, done, close };
    },
    async stopWorker() {
      if (!running) return;
      const r = running;
      running = null;
      r.worker.shutdown();
      await r.done;
      await r.close();
    },
    async stop() {
      await harness.stopWorker();
      await temporal.close();
      await knex.destroy();
    },
  };
  if (opts.worker) await harness.startWorker();
  return harness;
}

export interface ProjectFixture {
  projectId: string;
  publicKey: string;
  secretKey: string;
  cookie: string;
  userId: string;
  email: string;
}

/** A fresh user and project through the real signup and project routes. */
export async function createProjectFixture(h: Harness, name = 'Test project'): Promise<ProjectFixture> {
  const email = `user-${crypto.randomBytes(6).toString('hex')}@example.test`;
  const signup = await h.http.post('/auth/signup').send({ email, password: 'correct horse battery' });
  if (signup.status !== 201) throw new Error(`signup failed: ${signup.status} ${JSON.stringify(signup.body)}`);
  const cookie = (signup.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
  const project = await h.http.post('/users/@me/projects').set('Cookie', cookie).send({ name });
  if (project.status !== 201) throw new Error(`project failed: ${project.status} ${JSON.stringify(project.body)}`);
  return { projectId: project.body.id, publicKey: project.body.publicKey, secretKey: project.body.secretKey, cookie, userId: signup.body.id, email };
}

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/** Polls until `check` returns a truthy value; tests wait on real workflows this way, never on sleeps. */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, timeoutMs = 30_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await check();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${last}` : ''}`);
}
