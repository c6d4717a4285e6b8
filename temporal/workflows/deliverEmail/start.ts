import { PRIORITY } from '../../priorities';
import type { DeliverEmailInput } from '../../contract';
import { type StartOnce, startSpec } from '../../startSpec';
import { deliveryStart } from '../../summaries';
import { deliverEmailWorkflowId } from '../../workflowIds';

export interface DeliveryStart {
  id: string;
  projectId: string;
  contactId: string | null;
  /** The template's name, when the email came from one (shown in the Web UI). */
  template?: string | null;
  /** Who asked: `POST /v1/send`, `campaign test`, a SEND_EMAIL step, … */
  source: string;
  /** The workflow execution whose SEND_EMAIL step sent it (its child start). */
  executionId?: string;
}

/**
 * One stored email's delivery under `email-<id>`: a repeat start is a no-op. Transactional priority.
 * Started by the API (services/deliveries.ts) and, as a child, by the SEND_EMAIL step.
 */
export const deliverEmailStart = startSpec(
  'deliverEmail',
  (email: DeliveryStart): StartOnce<[DeliverEmailInput]> => ({
    workflowId: deliverEmailWorkflowId(email.id),
    args: [{ emailId: email.id }],
    ...deliveryStart({
      emailId: email.id,
      projectId: email.projectId,
      contactId: email.contactId,
      label: email.template,
      source: email.source,
      executionId: email.executionId,
    }),
    searchAttributes: { ProjectId: email.projectId, ContactId: email.contactId ?? undefined },
    priorityKey: PRIORITY.transactional,
  }),
);
