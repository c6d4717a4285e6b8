import { proxyActivities, setCurrentDetails, workflowInfo } from '@temporalio/workflow';
import type { deliveryBatchActivities } from '../../../activities/deliveryBatch';
import type { DeliverEmailBatchInput } from '../../contract';

const { deliverBatch } = proxyActivities<ReturnType<typeof deliveryBatchActivities>>({
  startToCloseTimeout: '10 minutes',
  // The activity heartbeats while it waits for throttle slots and while provider calls run.
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 20 },
});

/**
 * The emails of /v1/send requests that arrived together (services/deliveryBatcher.ts), delivered by
 * one activity: one workflow start per batch instead of one per email. Each email is still handed
 * over at most once and has its own outcome on its row; the rows name this workflow
 * (`delivery_workflow`), and the activity finds them by it.
 */
export async function deliverEmailBatch({ emailIds }: DeliverEmailBatchInput) {
  const what = `Delivery of ${emailIds.length} email${emailIds.length === 1 ? '' : 's'}`;
  setCurrentDetails(`${what} · handing over`);
  const result = await deliverBatch(workflowInfo().workflowId);
  setCurrentDetails(`${what} · ${result.sent} sent, ${result.failed} failed`);
  return result;
}
