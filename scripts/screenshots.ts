/**
 * `npx tsx scripts/screenshots.ts`: the screenshots of docs/operators.md, taken from the real
 * Temporal Web UI. Starts a stack of its own (a Temporal dev server with its UI, a fresh Postgres
 * database, the worker and the API), drives it through the API (an automation waiting for an event,
 * a campaign paused mid-send, an import), then photographs the UI in headless Chromium
 * (puppeteer-core driving CHROMIUM_PATH, default /usr/bin/chromium) into docs/img/. Removes its
 * database and stops everything afterwards.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import puppeteer, { Page } from 'puppeteer-core';
import { loadConfig } from '../lib/config';
import { createLogger } from '../lib/logger';
import { createKnex, dropDatabase, ensureDatabase, migrateLatest } from '../db/knex';
import { startDevServer } from '../worker/devServer';
import { createTemporalGateway } from '../services/temporal';
import { createRuntime } from '../services/runtime';
import { createWorker } from '../worker/worker';
import { startApi, closeServer } from '../api/server';

const OUT = path.resolve(__dirname, '..', 'docs', 'img');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const BASE_DB = process.env.SCREENSHOT_DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, check: () => Promise<T | null | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = await check().catch(() => null);
    if (v) return v;
    await sleep(250);
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function main() {
  const url = new URL(BASE_DB);
  url.pathname = `/svc_screenshots_${Date.now()}_${crypto.randomBytes(3).toString('hex')}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-shots-'));
  const uiPort = 18233 + Math.floor(Math.random() * 500);
  const server = await startDevServer({ uiPort });
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: url.toString(),
    JWT_SECRET: 'screenshots-secret-screenshots-secret',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    PORT: '0',
    TEMPORAL_ADDRESS: server.address,
    // A day lasts 8.64 s, so the automation below is seen in its DELAY and then its WAIT_FOR_EVENT.
    WORKFLOW_TIME_SCALE: '0.0001',
    // Small batches, one lane: the campaign is still sending when it is paused.
    CAMPAIGN_BATCH_SIZE: '20',
    CAMPAIGN_BATCH_LANES: '1',
  });
  const log = createLogger('warn', 'screenshots');
  await ensureDatabase(config.databaseUrl);
  const knex = createKnex(config.databaseUrl);
  const cleanups: Array<() => Promise<unknown>> = [];
  try {
    await migrateLatest(knex);
    const { worker, close } = await createWorker({ config, knex, log, address: server.address });
    const running = worker.run();
    cleanups.push(async () => {
      worker.shutdown();
      await running;
      await close();
    });
    const temporal = createTemporalGateway(config, server.address);
    const api = await startApi({ config, knex, temporal, log, runtime: createRuntime({ config, knex, temporal, log }) });
    cleanups.push(async () => {
      await closeServer(api);
      await temporal.close();
    });
    const base = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    const call = async (method: string, p: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(base + p, {
        method,
        headers: { 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (res.status >= 400) throw new Error(`${method} ${p}: ${res.status} ${text}`);
      return { json: text ? JSON.parse(text) : null, headers: res.headers };
    };

    // A project with a verified domain and 400 contacts (ids in order, like imports make them).
    const signup = await call('POST', '/auth/signup', { email: 'operator@example.com', password: 'correct horse battery' });
    const cookie = signup.headers.get('set-cookie')!.split(';')[0];
    const project = (await call('POST', '/users/@me/projects', { name: 'Acme newsletter' }, { cookie })).json;
    const auth = { Authorization: `Bearer ${project.secretKey}` };
    await knex('domains').insert({
      id: crypto.randomUUID(),
      project_id: project.id,
      domain: 'mail.acme.test',
      token: 'screenshots',
      status: 'VERIFIED',
      records: '[]',
      verified_at: new Date(),
    });
    const tag = crypto.randomBytes(3).toString('hex');
    await knex('contacts').insert(
      Array.from({ length: 400 }, (_, i) => ({
        id: `cnt_${tag}${String(i).padStart(6, '0')}`,
        project_id: project.id,
        email: `reader${i}@example.org`,
        subscribed: true,
        data: '{}',
      })),
    );

    // An automation: signup → DELAY 1 day → WAIT_FOR_EVENT purchase (timeout 7 days) → EXIT.
    const wf = (await call('POST', '/workflows', { name: 'Welcome series', eventName: 'signup', allowReentry: false }, auth)).json;
    const steps: Record<string, string> = { trigger: wf.steps[0].id };
    for (const [key, step] of Object.entries({
      delay: { type: 'DELAY', name: 'Wait a day', config: { amount: 1, unit: 'days' } },
      wait: { type: 'WAIT_FOR_EVENT', name: 'Bought?', config: { eventName: 'purchase', timeout: { amount: 7, unit: 'days' } } },
      exit: { type: 'EXIT', name: 'Done' },
    }))
      steps[key] = (await call('POST', `/workflows/${wf.id}/steps`, step, auth)).json.id;
    for (const [from, to, branch] of [
      ['trigger', 'delay'],
      ['delay', 'wait'],
      ['wait', 'exit', 'next'],
    ]) {
      await call('POST', `/workflows/${wf.id}/transitions`, { fromStepId: steps[from], toStepId: steps[to], ...(branch ? { branch } : {}) }, auth);
    }
    await call('PATCH', `/workflows/${wf.id}`, { enabled: true }, auth);
    for (let i = 0; i < 3; i++)
      await call('POST', '/v1/track', { email: `reader${i}@example.org`, event: 'signup' }, { Authorization: `Bearer ${project.publicKey}` });
    const exec = await until('an execution waiting for its event', async () =>
      knex('workflow_executions').where({ workflow_id: wf.id, status: 'WAITING' }).whereNotNull('waiting_for').first(),
    );

    // A campaign paused mid-send, and one import.
    const campaign = (
      await call('POST', '/campaigns', { name: 'November news', subject: 'News', body: '<p>Hello</p>', from: 'news@mail.acme.test', audienceType: 'ALL' }, auth)
    ).json.data;
    await call('POST', `/campaigns/${campaign.id}/send`, {}, auth);
    await until(
      'the campaign to accept a pause',
      async () => (await fetch(`${base}/campaigns/${campaign.id}/pause`, { method: 'POST', headers: auth })).status === 200,
    );
    await call('POST', '/contacts/bulk-unsubscribe', { contactIds: [`cnt_${tag}000399`] }, auth);
    await sleep(3000); // Visibility is eventually consistent.

    fs.mkdirSync(OUT, { recursive: true });
    const browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      userDataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'svc-chromium-')),
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    cleanups.push(() => browser.close());
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    const ui = server.uiUrl!;
    const shot = async (name: string, p: Page) => {
      await sleep(1500);
      await p.screenshot({ path: path.join(OUT, `${name}.png`) });
      process.stdout.write(`docs/img/${name}.png\n`);
    };

    const list = `${ui}/namespaces/default/workflows?query=${encodeURIComponent(`ProjectId = '${project.id}'`)}`;
    await page.goto(list, { waitUntil: 'networkidle2' });
    await shot('workflows-list', page);

    const stepFilter = `${ui}/namespaces/default/workflows?query=${encodeURIComponent(`WorkflowDefinitionId = '${wf.id}' AND StepType = 'WAIT_FOR_EVENT'`)}`;
    await page.goto(stepFilter, { waitUntil: 'networkidle2' });
    await shot('filter-step-type', page);

    // An execution's page, User Metadata tab: static summary, static details, current details.
    const execId = `exec-${exec.id}`;
    await page.goto(`${ui}/namespaces/default/workflows/${execId}`, { waitUntil: 'networkidle2' });
    await page.locator('::-p-text(User Metadata)').click();
    await shot('execution-details', page);

    await page.goto(`${ui}/namespaces/default/workflows/campaign-${campaign.id}`, { waitUntil: 'networkidle2' });
    await page.locator('::-p-text(User Metadata)').click();
    await shot('campaign-paused', page);

    // The Queries tab: pick `state` and run it.
    const handle = (await temporal.client()).workflow.getHandle(`campaign-${campaign.id}`);
    const runId = (await handle.describe()).runId;
    await page.goto(`${ui}/namespaces/default/workflows/campaign-${campaign.id}/${runId}/query`, { waitUntil: 'networkidle2' });
    await page.locator('::-p-text(Run Query)').click();
    await shot('campaign-state-query', page);
  } finally {
    for (const c of cleanups.reverse()) await c().catch((err) => process.stderr.write(`cleanup: ${err}\n`));
    await knex.destroy();
    await dropDatabase(config.databaseUrl).catch(() => undefined);
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`screenshots failed: ${err?.stack ?? err}\n`);
  process.exit(1);
});
