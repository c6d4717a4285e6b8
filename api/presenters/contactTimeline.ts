import type { TimelineItemOutput } from '../schemas/contactTimeline';
import type { STORY_STEPS } from '../schemas/contactTimeline';
import type { TimelineRow } from '../../db/contactTimeline';
import type { InboundKind } from '../../db/inbound';
import { iso } from '../../lib/time';

/**
 * A timeline row as GET /contacts/:id/timeline answers it: a title in English words, the ids it names,
 * and, per kind, the parts the sentence is made of, so the dashboard says it in a person's language.
 */

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
        email: {
          subject: r.subject,
          status: r.status,
          story: story(r),
          type: r.type,
          origin: r.campaign_id ? 'campaign' : r.workflow_execution_id ? 'workflow' : null,
          error: r.status === 'FAILED' ? r.error : null,
        },
      };
    case 'event':
      return { ...base, title: `Event ${r.name}`, links: {}, event: { name: r.name, data: r.data ?? {} } };
    case 'workflow':
      return {
        ...base,
        title: `Workflow ${quoted(r.workflow_name ?? 'deleted workflow')} started, ${r.status.toLowerCase()}`,
        detail: r.error,
        links: { workflowId: r.workflow_id, executionId: r.id },
        workflow: { id: r.workflow_id, name: r.workflow_name, status: r.status, error: r.error },
      };
    case 'segment':
      return {
        ...base,
        title: `${r.change === 'entry' ? 'Entered' : 'Left'} segment ${quoted(r.segment_name)}`,
        detail: r.source === 'list' ? 'the list was changed' : 'the segment was computed',
        links: { segmentId: r.segment_id },
        segment: { id: r.segment_id, name: r.segment_name, change: r.change === 'entry' ? 'entered' : 'left', cause: r.source },
      };
    case 'topic':
      return {
        ...base,
        title: `${r.value ? 'Subscribed to' : 'Unsubscribed from'} topic ${quoted(r.topic_name ?? r.topic_slug)}`,
        detail: from(r.source),
        links: { topicId: r.topic_id },
        topic: { id: r.topic_id, slug: r.topic_slug, name: r.topic_name, subscribed: r.value, source: r.source },
      };
    case 'consent':
      return {
        ...base,
        title: r.value ? 'Subscribed' : 'Unsubscribed',
        detail: from(r.source),
        links: {},
        consent: { subscribed: r.value, source: r.source },
      };
    case 'inbound':
      return {
        ...base,
        title: `${INBOUND_WORDS[r.inbound_kind]}${r.subject ? `: ${quoted(r.subject)}` : ''}`,
        detail: r.from_address ? `from ${r.from_address}` : null,
        links: { inboundId: r.id, ...(r.email_id ? { emailId: r.email_id } : {}) },
        inbound: { kind: r.inbound_kind, subject: r.subject, from: r.from_address },
      };
  }
}
