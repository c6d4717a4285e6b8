import type { TemporalGateway } from './client';
import { startWorkflowOnce } from './client';
import { deliverEmailWorkflowId } from './workflowIds';


/** Starts delivery of a stored email; the id makes a repeat start a no-op. */
export async function startDelivery(gateway: TemporalGateway, email: { id: string; projectId: string; contactId: string | null; to: string }) {
  await startWorkflowOnce(gateway, {
    workflowType: 'deliverEmail',
    workflowId: deliverEmailWorkflowId(email.id),
    args: [{ emailId: email.id }],
    searchAttributes: { ProjectId: email.projectId, ContactId: email.contactId ?? undefined },
    memo: { to: email.to },
  });
}
