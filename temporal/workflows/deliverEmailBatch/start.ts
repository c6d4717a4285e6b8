import { PRIORITY } from '../../priorities';
import type { DeliverEmailBatchInput } from '../../contract';
import { type StartOnce, startSpec } from '../../startSpec';
import { deliveryBatchStart } from '../../summaries';

/** The id a caller signals, updates or waits on; the start below uses the same one. */
export { deliverEmailBatchWorkflowId } from '../../workflowIds';

export interface DeliveryBatchStart {
  /** The id the batch's rows name from their commit (`emails-<uuid>`), so the sweep restarts the same one. */
  workflowId: string;
  projectId: string;
  emailIds: string[];
  source: string;
}

/** A /v1/send batch under the id its rows carry: a repeat start is a no-op. Transactional priority. */
export const deliverEmailBatchStart = startSpec(
  'deliverEmailBatch',
  (b: DeliveryBatchStart): StartOnce<[DeliverEmailBatchInput]> => ({
    workflowId: b.workflowId,
    args: [{ emailIds: b.emailIds }],
    ...deliveryBatchStart(b),
    searchAttributes: { ProjectId: b.projectId },
    memo: { emails: b.emailIds.length },
    priorityKey: PRIORITY.transactional,
  }),
);
