import { proxyActivities, setCurrentDetails, workflowInfo } from '@temporalio/workflow';
import type { emailActivities } from '../../../activities/email';
import type { workflowActivities } from '../../../activities/workflows';
import type { DeliverEmailInput } from '../../contract';

const { renderEmail, sendEmail, recordEmailEvent, routeRecordedEvent } = proxyActivities<
  ReturnType<typeof emailActivities> & ReturnType<typeof workflowActivities>
>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 20 },
});

/** One email: render, hand over to the transport (retried, at most once), record and route `email.sent` (or `email.suppressed`). */
export async function deliverEmail({ emailId }: DeliverEmailInput) {
  // Also says what it is when started as a child: SDK 1.24 does not pass a child's static summary on.
  const parent = workflowInfo().parent;
  const what = `Delivery of email ${emailId}${parent ? ` for ${parent.workflowId}` : ''}`;
  setCurrentDetails(`${what} · rendering`);
  const rendered = await renderEmail(emailId);
  if (!rendered.ok) {
    setCurrentDetails(`${what} · FAILED (render)`);
    return { status: 'FAILED' as const, error: rendered.error };
  }
  setCurrentDetails(`${what} · handing over`);
  const result = await sendEmail(emailId);
  setCurrentDetails(`${what} · ${result.status}`);
  if (result.status === 'SENT') {
    const eventId = await recordEmailEvent(emailId, 'email.sent');
    // Routed like every other event, so `email.sent` can trigger workflows and end waits.
    if (eventId) await routeRecordedEvent(eventId);
  } else if (result.status === 'SUPPRESSED') {
    // Recorded and routed like email.sent, so workflows, webhooks and the activity feed see it.
    const eventId = await recordEmailEvent(emailId, 'email.suppressed');
    if (eventId) await routeRecordedEvent(eventId);
  }
  return result;
}
