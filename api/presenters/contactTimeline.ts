import type { TimelineItemOutput } from '../schemas/contactTimeline';
import type { STORY_STEPS } from '../schemas/contactTimeline';
import type { TimelineRow } from '../../db/contactTimeline';
import type { InboundKind } from '../../db/inbound';
import { iso } from '../../lib/time';

/** A timeline row as GET /contacts/:id/timeline answers it: a title in words and the ids it names. */

type Step = (typeof STORY_STEPS)[number];
type EmailRow = Extract<TimelineRow, { kind: 'email' }>;

const MILESTONES: Array<[Exclude<Step, 'failed'>, keyof EmailRow]> = [
  ['sent', 'sent_at'],
  ['delivered', 'delivered_at'],
  ['opened', 'opened_at'],
  ['clicked', 'clicked_at'],
  ['bounced', 'bounced_at'],
  ['complained', 'complained_at'],
];

/**
 * The email's states from its row's milestone times (first open, first click…), oldest first: one
 * page of the timeline costs no query per email. GET /emails/:id tells every event (each open).
 */
function story(m: EmailRow): Array<{ step: Step; at: string }> {
  const steps: Array<{ step: Step; at: Date }> = [];
  for (const [step, column] of MILESTONES) {
    const at = m[column];
    if (at instanceof Date) steps.push({ step, at });
  }
  if (m.status === 'FAILED') steps.push({ step: 'failed', at: m.at });
  return steps.sort((a, b) => a.at.getTime() - b.at.getTime()).map((s) => ({ step: s.step, at: iso(s.at)! }));
}

const INBOUND_WORDS: Record<InboundKind, string> = {
  MESSAGE: 'Replied',
  HARD_BOUNCE: 'Hard bounce received',
  SOFT_BOUNCE: 'Soft bounce received',
  COMPLAINT: 'Complaint received',
  REPORT: 'Delivery report received',
  DMARC_FAILED: 'Mail failing DMARC received',
};

const quoted = (s: string | null | undefined) => (s ? `“${s}”` : '');
const from = (source: string) => `by ${source}`;

export function presentTimelineItem(r: TimelineRow): TimelineItemOutput {
  const base = { kind: r.kind, id: r.id, at: iso(r.at)!, detail: null as string | null };
  switch (r.kind) {
    case 'email':
      return {
        ...base,
        title: `Email ${quoted(r.subject || '(no subject)')} ${r.status.toLowerCase()}`,
        detail:
          r.status === 'FAILED'
            ? r.error
            : `${r.type.toLowerCase()}${r.campaign_id ? ', from a campaign' : r.workflow_execution_id ? ', from a workflow' : ''}`,
        links: {
          emailId: r.id,
          ...(r.campaign_id ? { campaignId: r.campaign_id } : {}),
          ...(r.workflow_execution_id ? { executionId: r.workflow_execution_id } : {}),
        },
        email: { subject: r.subject, status: r.status, story: story(r) },
      };
    case 'event':
      return { ...base, title: `Event ${r.name}`, links: {}, event: { name: r.name, data: r.data ?? {} } };
    case 'workflow':
      return {
        ...base,
        title: `Workflow ${quoted(r.workflow_name ?? 'deleted workflow')} started, ${r.status.toLowerCase()}`,
        detail: r.error,
        links: { workflowId: r.workflow_id, executionId: r.id },
      };
    case 'segment':
      return {
        ...base,
        title: `${r.change === 'entry' ? 'Entered' : 'Left'} segment ${quoted(r.segment_name)}`,
        detail: r.source === 'list' ? 'the list was changed' : 'the segment was computed',
        links: { segmentId: r.segment_id },
      };
    case 'topic':
      return {
        ...base,
        title: `${r.value ? 'Subscribed to' : 'Unsubscribed from'} topic ${quoted(r.topic_name ?? r.topic_slug)}`,
        detail: from(r.source),
        links: { topicId: r.topic_id },
      };
    case 'consent':
      return { ...base, title: r.value ? 'Subscribed' : 'Unsubscribed', detail: from(r.source), links: {} };
    case 'inbound':
      return {
        ...base,
        title: `${INBOUND_WORDS[r.inbound_kind]}${r.subject ? `: ${quoted(r.subject)}` : ''}`,
        detail: r.from_address ? `from ${r.from_address}` : null,
        links: { inboundId: r.id, ...(r.email_id ? { emailId: r.email_id } : {}) },
      };
  }
}
