import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { DeliverEmailInput } from '../contract';

const { renderEmail, sendEmail, recordEmailEvent, routeRecordedEvent } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 20 },
});


/** One email: render, hand over to the transport (retried, at most once), record and route `email.sent`. */
export async function deliverEmail({ emailId }: DeliverEmailInput) {
  const rendered = await renderEmail(emailId);
  if (!rendered.ok) return { status: 'FAILED' as const, error: rendered.error };
  const result = await sendEmail(emailId);
  if (result.status === 'SENT') {
    const eventId = await recordEmailEvent(emailId, 'email.sent');
    // Routed like every other event, so `email.sent` can trigger workflows and end waits.
    if (eventId) await routeRecordedEvent(eventId);
  }
  return result;
}
