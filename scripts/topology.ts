/**
 * The production shape, declared once. `npm run cluster` (scripts/cluster.ts) runs it on one
 * machine; `docker-compose.yml` describes it for several; test/unit/topology.test.ts keeps the
 * compose file in step with this list (services, commands, environment names).
 */

/** What every API and worker replica reads; all replicas of the cluster get the same values. */
export const SHARED_ENV = [
  'DATABASE_URL',
  'TEMPORAL_ADDRESS',
  'TEMPORAL_NAMESPACE',
  'TEMPORAL_TASK_QUEUE',
  'APP_URL',
  'JWT_SECRET',
  'CLUSTER_MODE',
  'UPLOAD_STORE',
  'S3_BUCKET',
  'S3_ENDPOINT',
  'S3_REGION',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
  'S3_FORCE_PATH_STYLE',
  'EMAIL_TRANSPORT',
  'SENDGRID_API_KEY',
  'SENDGRID_API_URL',
  'NODE_ENV',
  'METRICS_TOKEN',
  // Read by the workers (the VERP return path), the API (the MX records shown with domains) and the inbound server.
  'BOUNCE_DOMAIN',
  'INBOUND_MX_HOST',
] as const;

export interface AppService {
  /** Service name in docker-compose.yml; pid files are `<name>-<i>.pid`. */
  name: 'api' | 'worker' | 'inbound' | 'submission';
  /** The package.json script the process runs (compose: `npm run <script>`). */
  script: string;
  /** Variable holding the number of replicas, and its default. */
  replicas: { variable: 'CLUSTER_APIS' | 'CLUSTER_WORKERS' | 'CLUSTER_INBOUND' | 'CLUSTER_SUBMISSION'; default: number };
  /** Environment beyond SHARED_ENV. */
  env: readonly string[];
  /**
   * V8's old-space bound for the process, MB (NODE_OPTIONS=--max-old-space-size): without one a worker
   * keeps what a large campaign's batches once needed (563 MB RSS at 100,000 recipients against 344 MB
   * with a 200 MB bound, at the same rate: docs/benchmarks.md). An operator's own NODE_OPTIONS comes after it and wins.
   */
  heapMb?: number;
}

export const APP_SERVICES: readonly AppService[] = [
  // Replica i listens on PORT + i (compose publishes the same range, on loopback); API_HOST is
  // 127.0.0.1 under the cluster script, 0.0.0.0 inside a container (the published port decides there).
  {
    name: 'api',
    script: 'api',
    replicas: { variable: 'CLUSTER_APIS', default: 2 },
    env: ['PORT', 'DATA_DIR', 'API_HOST', 'DATABASE_REPLICA_URL', 'REPLICA_MAX_LAG_MS'],
  },
  // Worker i serves its metrics on the configured ports + 2·i (workerMetricsEnv in scripts/cluster.ts).
  {
    name: 'worker',
    script: 'worker',
    replicas: { variable: 'CLUSTER_WORKERS', default: 2 },
    env: ['WORKER_METRICS_ADDRESS', 'WORKER_APP_METRICS_ADDRESS'],
    heapMb: 256,
  },
  // The inbound SMTP server (docs/inbound.md); replica i listens on INBOUND_SMTP_PORT + i under the cluster script.
  {
    name: 'inbound',
    script: 'inbound',
    replicas: { variable: 'CLUSTER_INBOUND', default: 1 },
    env: ['INBOUND_SMTP_PORT', 'INBOUND_SMTP_HOST', 'INBOUND_MAX_BYTES', 'INBOUND_TLS_CERT', 'INBOUND_TLS_KEY'],
  },
  // The SMTP submission server (docs/smtp.md); replica i listens on SUBMISSION_PORT + i (and SUBMISSION_TLS_PORT + i) under the cluster script.
  {
    name: 'submission',
    script: 'submission',
    replicas: { variable: 'CLUSTER_SUBMISSION', default: 1 },
    env: ['SUBMISSION_PORT', 'SUBMISSION_TLS_PORT', 'SUBMISSION_HOST', 'SUBMISSION_MAX_BYTES', 'SUBMISSION_TLS_CERT', 'SUBMISSION_TLS_KEY'],
  },
];

/**
 * The Temporal services. The cluster script runs the binaries scripts/temporal-server.sh builds
 * (and itself applies the schema and registers the namespace); compose runs the images of the same
 * versions (`temporalio/auto-setup` does the schema and namespace).
 */
export const TEMPORAL_SERVER_VERSION = '1.29.1';
export const TEMPORAL_UI_VERSION = '2.55.0';
export const TEMPORAL_SERVICES = { server: 'temporal', ui: 'temporal-ui' } as const;

/** Postgres is not started by the cluster script: it uses the server of DATABASE_URL. */
export const EXTERNAL_SERVICES = ['postgres'] as const;

/** Compose-only extras behind a profile (`--profile monitoring`); the cluster script leaves scraping to the operator. */
export const MONITORING_SERVICES = ['prometheus'] as const;

/** The Temporal databases, created on the Postgres server of DATABASE_URL. */
export const TEMPORAL_DATABASES = { default: 'temporal', visibility: 'temporal_visibility' } as const;

/** Tooling variables read by the cluster script only (the README lists them). */
export const CLUSTER_TOOLING_ENV = ['CLUSTER_APIS', 'CLUSTER_WORKERS'] as const;

/**
 * Where the cluster script binds every listener (Temporal frontend, its internal services and
 * metrics, the Web UI, the APIs): none of them authenticates, so they stay on this machine unless an
 * operator puts TLS and authentication in front (docs/deployment.md, "Securing Temporal").
 */
export const CLUSTER_BIND_HOST = '127.0.0.1';

/** NODE_OPTIONS for a service: its heap bound first, then whatever the operator set (the last flag wins). */
export function serviceNodeOptions(service: AppService, operator: string | undefined): string | undefined {
  const own = service.heapMb ? `--max-old-space-size=${service.heapMb}` : '';
  return [own, operator ?? ''].filter(Boolean).join(' ') || undefined;
}
