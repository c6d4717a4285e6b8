import { PRIORITY } from '../../priorities';
import { type StartOnce, startSpec } from '../../startSpec';
import { deliveryBatchStart } from '../../summaries';
import type { deliverEmailBatch } from './index';

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
  (b: DeliveryBatchStart): StartOnce<typeof deliverEmailBatch> => ({
    workflowId: b.workflowId,
    args: [{ emailIds: b.emailIds }],
    ...deliveryBatchStart(b),
    searchAttributes: { ProjectId: b.projectId },
    memo: { emails: b.emailIds.length },
    priorityKey: PRIORITY.transactional,
  }),
);
