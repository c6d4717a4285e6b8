import { signalWithStart, type TemporalGateway } from '../temporal';
import type { WokenEndpoint } from '../../db/webhookDeliveries';
import { WEBHOOK_WAKE_SIGNAL } from '../../temporal/webhooks';
import { webhookDeliverySpec } from '../../temporal/workflows/webhookDelivery/start';

/**
 * Wakes each endpoint's delivery workflow (`webhook-<endpointId>`), starting it when it is not
 * running: one signal per endpoint per batch of messages, never a workflow per message.
 */
export async function wakeWebhookEndpoints(gateway: TemporalGateway, endpoints: WokenEndpoint[]): Promise<void> {
  for (const e of endpoints) await signalWithStart(gateway, webhookDeliverySpec, e, WEBHOOK_WAKE_SIGNAL);
}

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
