import http from 'node:http';
import type { RuntimeOptions } from '@temporalio/worker';
import type { Knex } from 'knex';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import { bearerTokenMatches, metricsText, METRICS_CONTENT_TYPE, observePool } from '../lib/metrics';

/**
 * The Temporal SDK's own worker metrics (task latencies, schedule-to-start, sticky cache, slots),
 * served by its runtime's Prometheus exporter at WORKER_METRICS_ADDRESS. Part of `Runtime.install`,
 * which runs once per process before any worker or native connection exists.
 * Names follow Prometheus conventions: `_total` counters, durations in seconds with the unit in the name.
 */
export function sdkTelemetryOptions(config: Config): Pick<RuntimeOptions, 'telemetryOptions'> {
  const bindAddress = config.metrics.workerAddress;
  if (!bindAddress) return {};
  return { telemetryOptions: { metrics: { prometheus: { bindAddress, countersTotalSuffix: true, unitSuffix: true, useSecondsForDurations: true } } } };
}

function hostAndPort(address: string): { host: string; port: number } {
  const at = address.lastIndexOf(':');
  return { host: address.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(address.slice(at + 1)) };
}

/**
 * The worker's own counters (lib/metrics.ts: emails handed over, executions, provider events, its
 * Postgres pool) at WORKER_APP_METRICS_ADDRESS `/metrics`; the SDK's exporter serves only the SDK's
 * metrics, and the counters must come from the process that does the work. Same token as the API.
 */
export async function serveWorkerMetrics(config: Config, knex: Knex, log: Logger): Promise<{ close(): Promise<void> }> {
  observePool('worker', knex);
  const address = config.metrics.workerAppAddress;
  if (!address) return { close: async () => undefined };
  const token = config.metrics.token;
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'only GET /metrics is served here' }));
      return;
    }
    if (token && !bearerTokenMatches(req.headers.authorization, token)) {
      res
        .writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="metrics"' })
        .end(JSON.stringify({ error: 'Missing or invalid metrics token' }));
      return;
    }
    metricsText().then(
      (text) => res.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE, 'cache-control': 'no-store' }).end(req.method === 'HEAD' ? undefined : text),
      (err) => {
        log.error({ err }, 'metrics collection failed');
        res.writeHead(500).end();
      },
    );
  });
  const { host, port } = hostAndPort(address);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  log.info({ address }, 'worker metrics at /metrics');
  return { close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
