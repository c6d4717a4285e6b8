import type { TemporalGateway } from './temporal';
import { startWorkflowOnce } from './temporal';
import { deliverEmailWorkflowId } from '../temporal/workflowIds';
import { deliverEmail } from '../temporal/workflows/deliverEmail';
import { deliveryStart } from '../temporal/summaries';
import { PRIORITY } from '../temporal/priorities';

export interface DeliveryStart {
  id: string;
  projectId: string;
  contactId: string | null;
  /** The template's name, when the email came from one (shown in the Web UI). */
  template?: string | null;
  /** Who asked: `POST /v1/send`, `campaign test`, … */
  source: string;
}

/** Starts delivery of a stored email; the id makes a repeat start a no-op. */
export async function startDelivery(gateway: TemporalGateway, email: DeliveryStart) {
  await startWorkflowOnce(gateway, deliverEmail, {
    workflowId: deliverEmailWorkflowId(email.id),
    args: [{ emailId: email.id }],
    ...deliveryStart({ emailId: email.id, projectId: email.projectId, contactId: email.contactId, label: email.template, source: email.source }),
    searchAttributes: { ProjectId: email.projectId, ContactId: email.contactId ?? undefined },
    priorityKey: PRIORITY.transactional,
  });
}
