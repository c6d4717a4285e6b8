/**
 * `npm start`: everything on one machine. Migrations, the API, the worker and — unless
 * TEMPORAL_ADDRESS names a cluster — a local Temporal dev server with its Web UI and SQLite
 * persistence under DATA_DIR — and, unless a variable names an email provider, a development inbox
 * the emails go to over SMTP; the inbound SMTP server (bounces, complaints, replies; docs/inbound.md)
 * on INBOUND_SMTP_PORT; and the SMTP submission server (docs/smtp.md) on SUBMISSION_PORT. One Ctrl-C stops all of it.
 */
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { loadConfigOrExit } from '../lib/config';
import { createLogger } from '../lib/logger';
import { createKnex, ensureDatabase, migrateLatest } from '../db/knex';
import { createReplicaSet } from '../db/replicas';
import { startDevServer, DevServer } from '../worker/devServer';
import { startDevInbox, DevInbox } from './devInbox';
import { ensureSearchAttributes } from '../worker/searchAttributes';
import { createTemporalGateway } from '../services/temporal';
import { createRuntime } from '../services/runtime';
import { createWorker } from '../worker/worker';
import { startApi, closeServer } from '../api/server';
import { ensureDashboardBuilt } from './buildWeb';
import { ensureWorkflowBundle } from './buildWorkflows';
import { startInboundServer } from '../inbound/server';
import { startSubmissionServer, type SubmissionServer } from '../submission/server';

async function main() {
  const config = loadConfigOrExit();
  const log = createLogger(config.logLevel, 'svc');

  let inbox: DevInbox | undefined;
  let email = config.email;
  // First: it fails fast on a taken port, before anything else is running.
  if (config.devInbox) {
    inbox = await startDevInbox({
      ...config.devInbox,
      mailDirectory: path.resolve(config.dataDir, 'inbox'),
      log: (line) => log.debug({ inbox: line }),
    });
    email = { ...config.email, transport: 'smtp', smtp: config.devInbox.smtp, localInbox: true };
  }

  // The dashboard is built by `npm ci` (prepare); this rebuilds it when web/ changed since (scripts/buildWeb.ts).
  const dashboard = await ensureDashboardBuilt((line) => log.info(line));
  if (dashboard.reason) log.warn(`the dashboard is not built: ${dashboard.reason}`);

  let devServer: DevServer | undefined;
  let address = config.temporal.address;
  if (!address) {
    log.info('starting the local Temporal dev server (set TEMPORAL_ADDRESS to use a cluster instead)');
    devServer = await startDevServer({
      port: config.temporal.port,
      uiPort: config.temporal.uiPort,
      dbFile: path.resolve(config.dataDir, 'temporal.db'),
      log: (line) => log.debug({ temporal: line }),
    });
    address = devServer.address;
  } else {
    const conn = await Connection.connect({ address });
    await ensureSearchAttributes(conn, config.temporal.namespace);
    await conn.close();
  }
  const runtimeConfig = { ...config, temporal: { ...config.temporal, address }, email };

  await ensureDatabase(config.databaseUrl);
  const knex = createKnex(config.databaseUrl, { max: 20 });
  await migrateLatest(knex);
  log.info('database migrated');

  // Bundled once and reused by later starts while temporal/ is unchanged (worker/workflowBundle.ts).
  const workflowBundlePath = await ensureWorkflowBundle((line) => log.info(line));
  const { worker, close: closeWorker } = await createWorker({ config: runtimeConfig, knex, log, address, schedules: true, workflowBundlePath });
  const temporal = createTemporalGateway(runtimeConfig, address);
  // The API gets a pool of its own with the statement timeout; the worker's batch statements may run longer.
  const apiKnex = createKnex(config.databaseUrl, { max: 10, statementTimeoutMs: config.dbStatementTimeoutMs });
  // The API and the inbound server share this process's collaborators (the worker builds its own).
  const runtime = createRuntime({ config: runtimeConfig, knex: apiKnex, temporal, log });
  // Heavy dashboard reads may go to streaming replicas (DATABASE_REPLICA_URL; docs/capacity.md).
  const reader = createReplicaSet(apiKnex, config, { max: 10, statementTimeoutMs: config.dbStatementTimeoutMs });
  const server = await startApi({ config: runtimeConfig, knex: apiKnex, reader, temporal, log, runtime });
  const inboundServer = await startInboundServer({ config: runtimeConfig, knex, temporal, log, runtime });
  log.info({ port: inboundServer.port }, `inbound SMTP server on ${config.inbound.host ?? '0.0.0.0'}:${inboundServer.port} (bounces, complaints, replies)`);
  // Port 587 needs privileges on most machines: without them everything else still runs.
  let submissionServer: SubmissionServer | undefined;
  try {
    submissionServer = await startSubmissionServer({ config: runtimeConfig, knex: apiKnex, temporal, log, runtime });
    const where = config.submission.host ?? '0.0.0.0';
    log.info(
      { port: submissionServer.port, tlsPort: submissionServer.tlsPort },
      `SMTP submission server on ${where}:${submissionServer.port} (STARTTLS)${submissionServer.tlsPort ? ` and ${where}:${submissionServer.tlsPort} (TLS)` : ''}; log in with any user and the secret key`,
    );
  } catch (err: any) {
    if (err?.code !== 'EACCES' && err?.code !== 'EADDRINUSE') throw err;
    log.warn(
      { err: err.message },
      `the SMTP submission server could not listen on port ${config.submission.port} (${err.code}); set SUBMISSION_PORT (e.g. 2587) to run it`,
    );
  }
  // The first address a newcomer needs: the dashboard.
  log.info({ url: `http://localhost:${config.port}/app/` }, `Dashboard at http://localhost:${config.port}/app/`);
  log.info({ url: `http://localhost:${config.port}` }, `API listening at http://localhost:${config.port} (docs at /docs)`);
  if (devServer?.uiUrl) log.info({ url: devServer.uiUrl }, `Temporal Web UI at ${devServer.uiUrl}`);
  else log.info({ address }, `using the Temporal cluster at ${address}`);
  if (inbox) {
    log.info(
      { url: inbox.webUrl, smtp: email.smtp!.url },
      `development inbox at ${inbox.webUrl}: every email is delivered there over SMTP (set EMAIL_TRANSPORT, SMTP_URL or SENDGRID_API_KEY to send for real)`,
    );
  } else log.info({ transport: email.transport }, `emails go to the ${email.transport} transport`);

  // The SDK runtime shuts the worker down on SIGINT/SIGTERM; run() resolves once in-flight tasks finish.
  await worker.run();
  log.info('shutting down');
  await closeServer(server);
  await inboundServer.close();
  await submissionServer?.close();
  await temporal.close();
  await closeWorker();
  await reader?.destroy();
  await apiKnex.destroy();
  await knex.destroy();
  await devServer?.stop();
  await inbox?.stop();
}

main().catch((err) => {
  process.stderr.write(`start failed: ${err?.stack ?? err}\n`);
  process.exit(1);
});
