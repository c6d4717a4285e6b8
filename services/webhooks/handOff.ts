import type { TemporalGateway } from '../temporal';
import type { WokenEndpoint } from '../../db/webhookDeliveries';
import { webhookDeliveryWorkflowId } from '../../temporal/workflowIds';
import { WEBHOOK_WAKE_SIGNAL } from '../../temporal/webhooks';
import { webhookDelivery } from '../../temporal/workflows/webhookDelivery';

/**
 * Wakes each endpoint's delivery workflow (`webhook-<endpointId>`), starting it when it is not
 * running: one signal per endpoint per batch of messages, never a workflow per message.
 */
export async function wakeWebhookEndpoints(gateway: TemporalGateway, endpoints: WokenEndpoint[]): Promise<void> {
  if (!endpoints.length) return;
  const client = await gateway.client();
  for (const e of endpoints) {
    await client.workflow.signalWithStart(webhookDelivery, {
      taskQueue: gateway.taskQueue,
      workflowId: webhookDeliveryWorkflowId(e.id),
      args: [{ endpointId: e.id }],
      signal: WEBHOOK_WAKE_SIGNAL,
      signalArgs: [],
      searchAttributes: { ProjectId: [e.project_id] },
      // Ids and the host only: the URL's path and query may carry a receiver's token.
      staticSummary: `Webhook deliveries to ${safeHost(e.url)} (endpoint ${e.id})`,
      staticDetails: `Drains the PENDING deliveries of webhook endpoint ${e.id} of project ${e.project_id}; see GET /webhook-endpoints/${e.id}/deliveries.`,
    });
  }
}

const safeHost = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return 'an endpoint';
  }
};

/**
 * For callers whose messages are already committed: a Temporal outage must not undo them, and
 * need not, because the maintenance sweep wakes endpoints whose due messages sit still.
 */
export async function handOffWebhooks(
  deps: { temporal: TemporalGateway; log: { warn: (obj: object, msg: string) => void } },
  endpoints: WokenEndpoint[],
): Promise<void> {
  try {
    await wakeWebhookEndpoints(deps.temporal, endpoints);
  } catch (err) {
    deps.log.warn({ err, endpoints: endpoints.map((e) => e.id) }, 'waking webhook deliveries failed; the maintenance sweep will wake them');
  }
}
