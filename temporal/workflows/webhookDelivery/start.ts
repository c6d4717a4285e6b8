import { type StartOnce, startSpec } from '../../startSpec';
import { webhookDeliveryStart } from '../../summaries';
import { webhookDeliveryWorkflowId } from '../../workflowIds';
import type { webhookDelivery } from './index';

/**
 * An endpoint's long-lived delivery workflow under `webhook-<endpointId>`, started with its wake
 * signal when it is not running (services/webhooks/handOff.ts): a run that ended idle starts again.
 */
export const webhookDeliverySpec = startSpec(
  'webhookDelivery',
  (e: { id: string; project_id: string; url: string }): StartOnce<typeof webhookDelivery> => ({
    workflowId: webhookDeliveryWorkflowId(e.id),
    args: [{ endpointId: e.id }],
    ...webhookDeliveryStart({ id: e.id, projectId: e.project_id, url: e.url }),
    searchAttributes: { ProjectId: e.project_id },
  }),
);
