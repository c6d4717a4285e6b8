import type { z } from 'zod';
import type { EmailOut, EmailSummaryOutput } from '../schemas/emails';
import type { EmailStoryEvent, EmailSummaryRow } from '../../db/emailQueries';
import { iso } from '../../lib/time';

/** Response shapes of the emails routes, typed by their `*Out` schemas (api/schemas/emails). */

export const presentEmailSummary = (m: EmailSummaryRow): EmailSummaryOutput => ({
  id: m.id,
  to: m.to_email,
  contactId: m.contact_id,
  subject: m.rendered_subject ?? m.subject,
  type: m.type,
  status: m.status,
  templateId: m.template_id,
  campaignId: m.campaign_id,
  workflowExecutionId: m.workflow_execution_id,
  sendAt: iso(m.send_at),
  createdAt: iso(m.created_at)!,
});

export const presentEmail = (m: EmailSummaryRow, events: EmailStoryEvent[]): z.input<typeof EmailOut> => ({
  ...presentEmailSummary(m),
  events: events.map((e) => ({ type: e.type, at: iso(e.at)!, data: e.data })),
});
