import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';

const { renderEmail, sendEmail, recordEmailEvent } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 20 },
});

export interface DeliverEmailInput {
  emailId: string;
}

/** One email: render, hand over to the transport (retried, at most once), record `email.sent`. */
export async function deliverEmail({ emailId }: DeliverEmailInput) {
  const rendered = await renderEmail(emailId);
  if (!rendered.ok) return { status: 'FAILED' as const, error: rendered.error };
  const result = await sendEmail(emailId);
  if (result.status === 'SENT') await recordEmailEvent(emailId, 'email.sent');
  return result;
}
