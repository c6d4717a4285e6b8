import type { TemporalGateway } from './temporal';
import { startWorkflowOnce } from './temporal';
import { deliverEmailWorkflowId } from '../temporal/workflowIds';
import { deliverEmail } from '../temporal/workflows/deliverEmail';

/** Starts delivery of a stored email; the id makes a repeat start a no-op. */
export async function startDelivery(gateway: TemporalGateway, email: { id: string; projectId: string; contactId: string | null; to: string }) {
  await startWorkflowOnce(gateway, deliverEmail, {
    workflowId: deliverEmailWorkflowId(email.id),
    args: [{ emailId: email.id }],
    searchAttributes: { ProjectId: email.projectId, ContactId: email.contactId ?? undefined },
    memo: { to: email.to },
  });
}
