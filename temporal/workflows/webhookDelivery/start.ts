import type { WokenEndpoint } from '../../../db/webhookDeliveries';
import type { WebhookDeliveryInput } from '../../contract';
import { type StartOnce, startSpec } from '../../startSpec';
import { webhookDeliveryWorkflowId } from '../../workflowIds';

export { WEBHOOK_WAKE_SIGNAL } from '../../contract';

/**
 * An endpoint's one delivery workflow (`webhook-<endpointId>`). services/webhooks/handOff.ts starts
 * it with its wake signal (signal-with-start), so a running one is woken instead of started twice.
 */
export const webhookDeliverySpec = startSpec(
  'webhookDelivery',
  (e: WokenEndpoint): StartOnce<[WebhookDeliveryInput]> => ({
    workflowId: webhookDeliveryWorkflowId(e.id),
    args: [{ endpointId: e.id }],
    // Ids and the host only: the URL's path and query may carry a receiver's token.
    summary: `Webhook deliveries to ${safeHost(e.url)} (endpoint ${e.id})`,
    details: `Drains the PENDING deliveries of webhook endpoint ${e.id} of project ${e.project_id}; see GET /webhook-endpoints/${e.id}/deliveries.`,
    searchAttributes: { ProjectId: e.project_id },
  }),
);

const safeHost = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return 'an endpoint';
  }
};
