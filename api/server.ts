import http from 'node:http';
import type { Deps } from './context';
import { buildApp } from './app';
import { removeStaleUploads } from '../lib/storage';

export async function startApi(deps: Deps, port = deps.config.port): Promise<http.Server> {
  const { app } = buildApp(deps);
  const stale = await removeStaleUploads(deps.config.dataDir);
  if (stale) deps.log.info({ stale }, 'removed upload files left by an earlier process');
  const server = http.createServer(app.callback());
  // Behind load balancers: keep idle sockets longer than typical LB idle timeouts.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, deps.config.apiHost, () => resolve());
  });
  return server;
}

export function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Standalone API process (the compose file runs API and workers as separate services). */
if (require.main === module) {
  (async () => {
    const { loadConfigOrExit } = await import('../lib/config');
    const { createLogger } = await import('../lib/logger');
    const { createKnex, ensureDatabase, migrateLatest } = await import('../db/knex');
    const { createTemporalGateway } = await import('../services/temporal');
    const config = loadConfigOrExit();
    const log = createLogger(config.logLevel, 'api');
    await ensureDatabase(config.databaseUrl);
    // Migrations may run longer than a request may: they use a pool without the API's statement timeout.
    const migrator = createKnex(config.databaseUrl, { max: 1 });
    await migrateLatest(migrator).finally(() => migrator.destroy());
    const knex = createKnex(config.databaseUrl, { max: 20, statementTimeoutMs: config.dbStatementTimeoutMs });
    const { createReplicaSet } = await import('../db/replicas');
    const reader = createReplicaSet(knex, config, { max: 20, statementTimeoutMs: config.dbStatementTimeoutMs });
    const temporal = createTemporalGateway(config);
    const { createRuntime } = await import('../services/runtime');
    const server = await startApi({ config, knex, reader, temporal, log, runtime: createRuntime({ config, knex, temporal, log }) });
    log.info({ url: `http://localhost:${config.port}` }, `API listening at http://localhost:${config.port}`);
    const stop = async () => {
      await closeServer(server);
      await temporal.close();
      await reader?.destroy();
      await knex.destroy();
      process.exit(0);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  })().catch((err) => {
    process.stderr.write(`api failed: ${err?.stack ?? err}\n`);
    process.exit(1);
  });
}
