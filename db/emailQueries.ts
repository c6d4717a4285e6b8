import type { Knex } from 'knex';
import { EMAIL_EVENT_NAMES, type EmailRow, type EmailStatus } from './emails';
import { TimeCursor, TimePage, timePage } from './eventQueries';
import { timeKeySql } from './cursors';

/**
 * Read queries over `emails` for the dashboard and API (GET /emails, GET /emails/:id). Writers live
 * in db/emails.ts and db/providerEvents.ts. Every query is scoped to one project.
 */

/** The columns a listing and a story show (never the body, variables or attachments). */
export interface EmailSummaryRow {
  id: string;
  project_id: string;
  to_email: string;
  contact_id: string | null;
  subject: string;
  rendered_subject: string | null;
  type: EmailRow['type'];
  status: EmailStatus;
  template_id: string | null;
  campaign_id: string | null;
  workflow_execution_id: string | null;
  error: string | null;
  sent_at: Date | null;
  delivered_at: Date | null;
  opened_at: Date | null;
  clicked_at: Date | null;
  bounced_at: Date | null;
  complained_at: Date | null;
  /** A scheduled email's due time; null for one sent at once. */
  send_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const SUMMARY_COLUMNS = [
  'id',
  'project_id',
  'to_email',
  'contact_id',
  'subject',
  'rendered_subject',
  'type',
  'status',
  'template_id',
  'campaign_id',
  'workflow_execution_id',
  'error',
  'sent_at',
  'delivered_at',
  'opened_at',
  'clicked_at',
  'bounced_at',
  'complained_at',
  'send_at',
  'created_at',
  'updated_at',
];

/** One email of the project; undefined for another project's (callers answer both with the same 404). */
export async function findProjectEmail(db: Knex, projectId: string, id: string): Promise<EmailSummaryRow | undefined> {
  return db('emails').where({ project_id: projectId, id }).first(SUMMARY_COLUMNS);
}

export interface ListEmailsInput {
  projectId: string;
  limit: number;
  after?: TimeCursor;
  contactId?: string;
  status?: EmailStatus;
}

/**
 * Newest first, keyset over (created_at, id); never OFFSET. Walks emails_project_created_id, or
 * emails_project_status_created_id with a status (migration 027); a contact's emails are few and
 * found through the contact_id index.
 */
export async function listEmails(db: Knex, input: ListEmailsInput): Promise<TimePage<EmailSummaryRow>> {
  const q = db('emails')
    .where('project_id', input.projectId)
    .select([...SUMMARY_COLUMNS, db.raw(`${timeKeySql('created_at')} AS sort_key`)])
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(input.limit + 1);
  if (input.contactId !== undefined) q.andWhere('contact_id', input.contactId);
  if (input.status !== undefined) q.andWhere('status', input.status);
  if (input.after) q.andWhereRaw('(created_at, id) < (?::timestamptz, ?::uuid)', [input.after.at, input.after.id]);
  return timePage((await q) as Array<EmailSummaryRow & { sort_key: string }>, input.limit);
}

// ───────────────────────────── one email's story ─────────────────────────────

export const EMAIL_EVENT_TYPES = ['sent', 'delivered', 'opened', 'clicked', 'replied', 'bounced', 'complained', 'suppressed', 'failed'] as const;
export type EmailEventType = (typeof EMAIL_EVENT_TYPES)[number];

export interface EmailStoryEvent {
  type: EmailEventType;
  at: Date;
  data: Record<string, unknown>;
}

/** The contact event each lifecycle step is recorded as (deliverEmail, campaign sends, the claims' suppression, services/providerEvents). */
const EVENT_NAMES: Record<Exclude<EmailEventType, 'failed'>, string> = EMAIL_EVENT_NAMES;
const TYPE_OF_NAME = new Map(Object.entries(EVENT_NAMES).map(([type, name]) => [name, type as EmailEventType]));

/**
 * The once-per-email timestamp each step also leaves on the row: the story falls back on it when
 * no event of that step exists (an email without a contact records none).
 */
const ROW_TIMES: Partial<Record<EmailEventType, keyof EmailSummaryRow>> = {
  sent: 'sent_at',
  delivered: 'delivered_at',
  opened: 'opened_at',
  clicked: 'clicked_at',
  bounced: 'bounced_at',
  complained: 'complained_at',
};

/** Ties (same instant) are told in lifecycle order. */
const RANK = new Map(EMAIL_EVENT_TYPES.map((t, i) => [t, i]));

/** One email's stories are short; an email opened thousands of times still answers in one page. */
const MAX_EVENTS = 1000;

/**
 * What happened to one email, oldest first: the `email.*` events recorded on its contact that name
 * it (each provider notification is one, so a second open is a second item), the row's milestone
 * timestamps for steps without an event, and `failed` from the row (a failure records no event; its
 * time is the row's last update). Oldest first, ties in lifecycle order. Walks events_contact_created_id.
 */
export async function emailStory(db: Knex, email: EmailSummaryRow): Promise<EmailStoryEvent[]> {
  const rows: Array<{ name: string; data: Record<string, unknown> | null; created_at: Date }> = email.contact_id
    ? await db('events')
        .where({ project_id: email.project_id, contact_id: email.contact_id })
        .whereIn('name', Object.values(EVENT_NAMES))
        .whereRaw("data->>'emailId' = ?", [email.id])
        .orderBy([
          { column: 'created_at', order: 'asc' },
          { column: 'id', order: 'asc' },
        ])
        .limit(MAX_EVENTS)
        .select('name', 'data', 'created_at')
    : [];
  const story: EmailStoryEvent[] = rows.map((r) => {
    // The email's own id is the path; the rest (url, reason, provider, campaignId) is what the event says.
    const { emailId: _emailId, ...data } = r.data ?? {};
    return { type: TYPE_OF_NAME.get(r.name)!, at: r.created_at, data };
  });
  const told = new Set(story.map((e) => e.type));
  for (const [type, column] of Object.entries(ROW_TIMES) as Array<[EmailEventType, keyof EmailSummaryRow]>) {
    const at = email[column];
    if (!told.has(type) && at instanceof Date) story.push({ type, at, data: {} });
  }
  if (email.status === 'FAILED') story.push({ type: 'failed', at: email.updated_at, data: { error: email.error } });
  // Providers report whole seconds on their own clock (the row's milestones keep that time), so a
  // delivery in the second of the send can read earlier than it: nothing is told before the send.
  const sentAt = story.find((e) => e.type === 'sent')?.at.getTime() ?? -Infinity;
  const key = (e: EmailStoryEvent) => (e.type === 'sent' ? e.at.getTime() : Math.max(e.at.getTime(), sentAt));
  return story.sort((a, b) => key(a) - key(b) || RANK.get(a.type)! - RANK.get(b.type)!);
}
