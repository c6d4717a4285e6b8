import crypto from 'node:crypto';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Knex } from 'knex';

/**
 * Every metric this process exports, in one registry: the API serves it at GET /metrics, a worker
 * at WORKER_APP_METRICS_ADDRESS (docs/metrics.md). Labels take bounded values only — never a
 * project, contact, campaign or email id — so the number of series stays fixed however many
 * tenants and contacts there are (test/integration/metrics.test.ts counts them).
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

const registers = [registry];

// ───────────────────────────── HTTP (API) ─────────────────────────────

const HTTP_LABELS = ['method', 'route', 'status_class'] as const;

export const httpRequests = new Counter({
  name: 'svc_http_requests_total',
  help: 'API requests answered, by method, route template (e.g. /contacts/:id) and status class (2xx, 4xx, ...)',
  labelNames: HTTP_LABELS,
  registers,
});

export const httpRequestDuration = new Histogram({
  name: 'svc_http_request_duration_seconds',
  help: 'Time from receiving an API request to its answer, by method, route template and status class',
  labelNames: HTTP_LABELS,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers,
});

// ───────────────────────────── Postgres pool ─────────────────────────────

const pools = new Map<string, Knex>();

/** Reports this knex instance's pool under `pool="<name>"` (the API's, a worker's) from now on. */
export function observePool(name: string, knex: Knex): void {
  pools.set(name, knex);
}

new Gauge({
  name: 'svc_db_pool_connections',
  help: 'Postgres pool (knex/tarn): connections in use, idle, and acquisitions waiting for one; "max" is the configured size',
  labelNames: ['pool', 'state'] as const,
  registers,
  collect() {
    this.reset();
    for (const [name, knex] of pools) {
      // A destroyed knex has no pool any more: its series disappear with it.
      const pool = (knex.client as { pool?: TarnPool }).pool;
      if (!pool) continue;
      this.set({ pool: name, state: 'used' }, pool.numUsed());
      this.set({ pool: name, state: 'free' }, pool.numFree());
      this.set({ pool: name, state: 'pending' }, pool.numPendingAcquires());
      this.set({ pool: name, state: 'max' }, pool.max);
    }
  },
});

interface TarnPool {
  max: number;
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

export const dbReads = new Counter({
  name: 'svc_db_heavy_reads_total',
  help: 'Heavy dashboard reads (counts, lists, analytics, exports) by the server that answered: "replica", or "primary" with why (none configured, the request wrote, its project wrote just now, every replica lagging)',
  labelNames: ['target', 'reason'] as const,
  registers,
});

// ───────────────────────────── event routing hand-off (API) ─────────────────────────────

export const eventRoutingQueued = new Gauge({
  name: 'svc_event_routing_queued_events',
  help: 'Tracked events waiting in this process for their routing workflow to be started (services/eventBatcher.ts)',
  registers,
});

export const eventRoutingHandoff = new Histogram({
  name: 'svc_event_routing_handoff_seconds',
  help: 'From the first event of a batch being queued to Temporal accepting (or refusing) its routing workflow, by outcome',
  labelNames: ['outcome'] as const,
  buckets: [0.05, 0.1, 0.15, 0.25, 0.5, 1, 2.5, 5, 10],
  registers,
});

export const eventsHandedOff = new Counter({
  name: 'svc_event_routing_events_total',
  help: 'Tracked events handed to a routing workflow (outcome="started"), or whose start failed and is left to the maintenance sweep (outcome="failed")',
  labelNames: ['outcome'] as const,
  registers,
});

// ───────────────────────────── business counters ─────────────────────────────

export const emailsHandedOver = new Counter({
  name: 'svc_emails_handed_over_total',
  help: 'Emails the provider accepted (or the log transport stored), by transport and email type',
  labelNames: ['transport', 'type'] as const,
  registers,
});

export const deliveriesFailed = new Counter({
  name: 'svc_email_deliveries_failed_total',
  help: 'Failed hand-overs by transport, email type and reason: rejected (permanent, email FAILED), interrupted (outcome unknown, email FAILED), unavailable (provider down, retried)',
  labelNames: ['transport', 'type', 'reason'] as const,
  registers,
});

export const providerEvents = new Counter({
  name: 'svc_provider_events_total',
  help: 'Provider webhook events received, by provider, event kind and outcome (applied, duplicate, unmatched, ignored)',
  labelNames: ['provider', 'kind', 'outcome'] as const,
  registers,
});

export const executionsStarted = new Counter({
  name: 'svc_executions_started_total',
  help: 'Workflow executions created, by how they started (trigger: an event; manual: POST /workflows/:id/executions)',
  labelNames: ['mode'] as const,
  registers,
});

export const workflowStarts = new Counter({
  name: 'svc_workflow_starts_total',
  help: 'Temporal workflow runs started by this process, by whether the server handed their first workflow task straight to this worker (eager start: worker processes only)',
  labelNames: ['eager'] as const,
  registers,
});

export const executionsEnded = new Counter({
  name: 'svc_executions_ended_total',
  help: 'Workflow executions ended, by final status (COMPLETED, EXITED, FAILED, CANCELLED)',
  labelNames: ['status'] as const,
  registers,
});

export const executionSteps = new Counter({
  name: 'svc_execution_steps_started_total',
  help: 'Steps of workflow executions started, by step type (TRIGGER steps are recorded with their execution and not counted)',
  labelNames: ['type'] as const,
  registers,
});

export const webhookAttempts = new Counter({
  name: 'svc_webhook_attempts_total',
  help: 'Outbound webhook calls, by result: delivered (a 2xx within 10 s) or failed (any other answer, a timeout, a refused target; retried until the retry window ends)',
  labelNames: ['result'] as const,
  registers,
});

/** The Prometheus text of this process's registry. */
export function metricsText(): Promise<string> {
  return registry.metrics();
}

export const METRICS_CONTENT_TYPE = registry.contentType;

/** Whether an Authorization header carries `Bearer <token>`; compared in constant time, so the token cannot be guessed a character at a time. */
export function bearerTokenMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer\s+(.+)$/i.exec(header ?? '')?.[1]?.trim() ?? '';
  const digest = (s: string) => crypto.createHash('sha256').update(s).digest();
  return crypto.timingSafeEqual(digest(given), digest(token));
}
