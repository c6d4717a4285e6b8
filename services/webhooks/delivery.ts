import type { Knex } from 'knex';
import type { Config } from '../../lib/config';
import type { TemporalGateway } from '../temporal';
import type { WebhookRoundResult } from '../../temporal/contract';
import { createResolver } from '../dns';
import { getWebhookEndpoint, recordEndpointHealth, WebhookEndpointRow } from '../../db/webhookEndpoints';
import { AttemptOutcome, dueDeliveries, failPendingDeliveries, nextDueInMs, recordAttempts } from '../../db/webhookDeliveries';
import { forEachLimit } from '../../lib/concurrency';
import { webhookAttempts } from '../../lib/metrics';
import { retryDelayMs, webhookPolicy } from './policy';
import { messageIdOf } from './signing';
import { sendSignedMessage } from './sender';
import { publishSystemMessage } from './publish';
import { pacer } from './pacer';

/** Messages per round (one activity); fewer at low rates, so a round's pacing stays near 10 s. */
export const ROUND_SIZE = 200;
const PACED_SECONDS_PER_ROUND = 10;
/** Requests in flight to one endpoint. */
const IN_FLIGHT = 16;

export interface DeliveryDeps {
  config: Config;
  knex: Knex;
  temporal: TemporalGateway;
  log: { warn: (obj: object, msg: string) => void };
}

/** The secrets that sign now: the current one, and the previous one during its overlap. */
export function signingSecrets(e: Pick<WebhookEndpointRow, 'secret' | 'previous_secret' | 'previous_secret_expires_at'>, now = Date.now()): string[] {
  const previousValid = e.previous_secret && e.previous_secret_expires_at && new Date(e.previous_secret_expires_at).getTime() > now;
  return previousValid ? [e.secret, e.previous_secret!] : [e.secret];
}

export interface RoundControl {
  heartbeat(): void;
  /** True once the worker is shutting down: no new request starts, and what was sent is recorded. */
  stopping(): boolean;
}

/**
 * One round of an endpoint's delivery workflow: sends its due messages (at most ROUND_SIZE, paced
 * to the endpoint's rate), records every outcome in one statement, and judges the endpoint's
 * health. Payloads are read here, never carried through Temporal.
 */
export async function deliverDueRound(
  deps: DeliveryDeps,
  endpointId: string,
  control: RoundControl = { heartbeat: () => undefined, stopping: () => false },
): Promise<WebhookRoundResult> {
  const { knex } = deps;
  const policy = webhookPolicy(deps.config);
  const endpoint = await getWebhookEndpoint(knex, endpointId);
  if (!endpoint) return { delivered: 0, failed: 0, stop: 'deleted', more: false, nextDueInMs: null };
  if (!endpoint.enabled) return { delivered: 0, failed: 0, stop: 'disabled', more: false, nextDueInMs: null };

  const roundSize = Math.min(ROUND_SIZE, Math.max(1, Math.floor(policy.ratePerSecond * PACED_SECONDS_PER_ROUND)));
  const due = await dueDeliveries(knex, endpointId, roundSize);
  const target = { url: endpoint.url, secrets: signingSecrets(endpoint), resolver: createResolver(deps.config), allowPrivate: deps.config.webhookAllowPrivate };
  const pace = pacer(policy.ratePerSecond);
  const outcomes: AttemptOutcome[] = [];
  await forEachLimit(due, IN_FLIGHT, async (d) => {
    if (control.stopping()) return;
    await pace();
    const r = await sendSignedMessage(target, messageIdOf(d.id), d.body);
    outcomes.push({ id: d.id, ...r, retryInMs: retryDelayMs(d.attempts + 1, policy.scale) });
    control.heartbeat();
  });
  await recordAttempts(knex, outcomes, policy.retryWindowMs);

  const delivered = outcomes.filter((o) => o.ok).length;
  const failed = outcomes.length - delivered;
  webhookAttempts.inc({ result: 'delivered' }, delivered);
  webhookAttempts.inc({ result: 'failed' }, failed);
  const health = await recordEndpointHealth(knex, endpointId, { succeeded: delivered > 0, failed: failed > 0 }, policy.disableAfterMs);
  if (health.disabled) {
    await failPendingDeliveries(knex, endpointId, 'endpoint disabled after failing continuously');
    await publishSystemMessage(deps, {
      projectId: endpoint.project_id,
      type: 'webhook.disabled',
      sourceKey: `webhook.disabled:${endpointId}:${new Date(endpoint.failing_since ?? 0).toISOString()}`,
      data: { endpointId, url: endpoint.url, failingSince: endpoint.failing_since },
      exceptEndpointId: endpointId,
    });
    return { delivered, failed, stop: 'disabled', more: false, nextDueInMs: null };
  }
  const more = due.length === roundSize || outcomes.length < due.length;
  return { delivered, failed, more, nextDueInMs: more ? 0 : await nextDueInMs(knex, endpointId) };
}
