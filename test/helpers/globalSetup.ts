import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { startDevServer, DevServer } from '../../worker/devServer';
import { createKnex, ensureDatabase, migrateLatest, dropDatabase } from '../../db/knex';
import { buildWorkflowBundle } from '../../worker/workflowBundle';

/** Shared by globalTeardown (same process). */
export interface TestRun {
  server?: DevServer;
  databaseUrl?: string;
  tmpDir?: string;
}
declare global {
  // eslint-disable-next-line no-var
  var __svcTestRun: TestRun | undefined;
}

const BASE_DB = process.env.TEST_DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export default async function globalSetup() {
  const run: TestRun = {};
  globalThis.__svcTestRun = run;
  try {
    run.tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-test-'));
    const url = new URL(BASE_DB);
    url.pathname = `/svc_test_${Date.now()}_${crypto.randomBytes(3).toString('hex')}`;
    run.databaseUrl = url.toString();

    const bundlePath = path.join(run.tmpDir, 'workflow-bundle.js');
    const [server] = await Promise.all([
      startDevServer({ headless: true }),
      buildWorkflowBundle(bundlePath),
      (async () => {
        await ensureDatabase(run.databaseUrl!);
        const knex = createKnex(run.databaseUrl!);
        try {
          await migrateLatest(knex);
        } finally {
          await knex.destroy();
        }
      })(),
    ]);
    run.server = server;

    // Test files are forked after this, so they inherit these.
    Object.assign(process.env, {
      DATABASE_URL: run.databaseUrl,
      TEST_TEMPORAL_ADDRESS: server.address,
      TEST_WORKFLOW_BUNDLE: bundlePath,
      JWT_SECRET: 'test-secret-test-secret-test-secret',
      DATA_DIR: path.join(run.tmpDir, 'data'),
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
      // Every 2xx reply parsed by its route's response schema, strictly (api/router.ts checkReply; NODE_ENV=test turns it on too).
      REPLY_CONTRACT_CHECK: '1',
      // Every 2xx of a route declaring `audit` committed an entry (api/router.ts checkAudited).
      AUDIT_CONTRACT_CHECK: '1',
    });
  } catch (err) {
    await cleanup(run);
    throw err;
  }
}

export async function cleanup(run: TestRun | undefined) {
  if (!run) return;
  await run.server?.stop().catch(() => undefined);
  if (run.databaseUrl) await dropDatabase(run.databaseUrl).catch(() => undefined);
  if (run.tmpDir) fs.rmSync(run.tmpDir, { recursive: true, force: true });
}
