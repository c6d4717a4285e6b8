import type { ScheduledSendInput } from '../../contract';
import { type StartOnce, startSpec } from '../../startSpec';
import { detailLines } from '../../summaries';
import { scheduledSendWorkflowId } from '../../workflowIds';

export { SCHEDULED_WAKE_SIGNAL } from '../../contract';

/**
 * A project's scheduled sends of one minute (`scheduled-send-<projectId>-<minute>`).
 * services/scheduledSends.ts starts it with its wake signal (signal-with-start), so every email
 * of the minute joins the one run instead of starting its own.
 */
export const scheduledSendSpec = startSpec(
  'scheduledSend',
  (m: ScheduledSendInput): StartOnce<[ScheduledSendInput]> => ({
    workflowId: scheduledSendWorkflowId(m.projectId, m.minute),
    args: [m],
    summary: `Scheduled sends of ${new Date(m.minute).toISOString().slice(0, 16)}Z (project ${m.projectId})`,
    details: detailLines([
      ['Project', m.projectId],
      ['Minute', new Date(m.minute).toISOString()],
      ['Rows', "the project's SCHEDULED emails due by the end of the minute (`send_at`); see GET /emails?status=SCHEDULED"],
    ]),
    searchAttributes: { ProjectId: m.projectId },
  }),
);
