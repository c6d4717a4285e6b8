import type { Knex } from 'knex';
import { inTransaction } from './transaction';
import type { LinkedInsert } from './contactWriters';

/** SUPPRESSED: its recipient was on the project's suppression list at hand-over (db/suppressions); never offered to a provider. */
/**
 * Every status an email row takes (docs/api.md, Emails); SENDING while a batch hands it over.
 * SCHEDULED: written with a future `sendAt`, waiting for its minute; CANCELLED: a scheduled email
 * cancelled before its hand-over (db/emailStates.ts moves both).
 */
export const EMAIL_STATUSES = [
  'SCHEDULED',
  'CANCELLED',
  'QUEUED',
  'SENDING',
  'SENT',
  'DELIVERED',
  'OPENED',
  'CLICKED',
  'BOUNCED',
  'COMPLAINED',
  'FAILED',
  'SUPPRESSED',
] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];

/** The contact event each step of an email's life is recorded as: the activity feed and GET /emails/:id read them back. */
export const EMAIL_EVENT_NAMES = {
  sent: 'email.sent',
  delivered: 'email.delivered',
  opened: 'email.opened',
  clicked: 'email.clicked',
  bounced: 'email.bounced',
  complained: 'email.complained',
  suppressed: 'email.suppressed',
  // The recipient answered (the inbound server matched the reply's In-Reply-To/References to the email).
  replied: 'email.replied',
} as const;
export type EmailType = 'TRANSACTIONAL' | 'MARKETING' | 'HEADLESS';

export interface EmailRow {
  id: string;
  project_id: string;
  contact_id: string | null;
  template_id: string | null;
  campaign_id: string | null;
  type: EmailType;
  to_email: string;
  to_name: string | null;
  from_email: string;
  from_name: string | null;
  reply_to: string | null;
  subject: string;
  body: string;
  /** Liquid source of the text/plain part; null: generated from the rendered body. */
  text: string | null;
  variables: Record<string, unknown>;
  headers: Record<string, string>;
  rendered_subject: string | null;
  rendered_body: string | null;
  /** The text/plain part as rendered; null for a row rendered before migration 029 (generated when sent). */
  rendered_text: string | null;
  /** The `deliverEmailBatch` workflow that delivers it (a /v1/send email); null for one delivered on its own. */
  delivery_workflow: string | null;
  /** The workflow execution whose SEND_EMAIL step wrote it; null for every other email. */
  workflow_execution_id: string | null;
  /** That execution's SEND_EMAIL step (migration 055; null for emails written before it). */
  workflow_step_id?: string | null;
  /** The topic it was sent as (a campaign's or a SEND_EMAIL step's): its unsubscribe links leave that topic only. */
  topic_id: string | null;
  status: EmailStatus;
  /** When a scheduled email is due (status SCHEDULED until then); null for one sent at once. */
  send_at: Date | null;
  /** First-party tracking (docs/tracking.md): a /v1/send override until rendered (null: the project's settings), then what the email got. */
  track_opens: boolean | null;
  track_clicks: boolean | null;
  /** The original URLs of the rewritten links, in click-token index order; null: clicks not tracked. */
  links: string[] | null;
  transport: string | null;
  provider_message_id: string | null;
  error: string | null;
  sent_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface NewEmail {
  id: string;
  projectId: string;
  contactId: string | null;
  templateId?: string | null;
  campaignId?: string | null;
  type: EmailType;
  to: { email: string; name?: string | null };
  from: { email: string; name?: string | null };
  replyTo?: string | null;
  subject: string;
  body: string;
  /** Liquid source of the text/plain part; absent or null: generated from the rendered body. */
  text?: string | null;
  variables: Record<string, unknown>;
  headers?: Record<string, string>;
  /** The batch workflow that will deliver it (db/deliveryBatches), when it goes in one. */
  deliveryWorkflow?: string | null;
  /** The execution whose SEND_EMAIL step writes it (activities/steps/sendEmail). */
  workflowExecutionId?: string | null;
  /** That SEND_EMAIL step (the step's sent / opened / clicked count its emails: db/workflowStepCounts). */
  workflowStepId?: string | null;
  /** The topic it is sent as (db/topics). */
  topicId?: string | null;
  attachments?: Array<{ filename: string; content: string; contentType?: string | null }>;
  /** A /v1/send request's `track`: overrides the project's tracking settings for this email. */
  track?: { opens?: boolean; clicks?: boolean };
  /** Written SCHEDULED, due at this time (db/emailStates.ts SCHEDULED_STATE); absent: QUEUED. */
  sendAt?: Date | null;
}

const columnsOf = (e: Omit<NewEmail, 'attachments'>) => ({
  id: e.id,
  project_id: e.projectId,
  contact_id: e.contactId,
  template_id: e.templateId ?? null,
  campaign_id: e.campaignId ?? null,
  type: e.type,
  to_email: e.to.email,
  to_name: e.to.name ?? null,
  from_email: e.from.email,
  from_name: e.from.name ?? null,
  reply_to: e.replyTo ?? null,
  subject: e.subject,
  body: e.body,
  text: e.text ?? null,
  variables: JSON.stringify(e.variables),
  headers: JSON.stringify(e.headers ?? {}),
  delivery_workflow: e.deliveryWorkflow ?? null,
  workflow_execution_id: e.workflowExecutionId ?? null,
  workflow_step_id: e.workflowStepId ?? null,
  track_opens: e.track?.opens ?? null,
  track_clicks: e.track?.clicks ?? null,
  topic_id: e.topicId ?? null,
  // A scheduled email's first state; every later move is db/emailStates'.
  ...(e.sendAt ? { status: 'SCHEDULED', send_at: e.sendAt } : {}),
});

export async function insertEmail(knex: Knex, e: NewEmail): Promise<void> {
  // Inside the caller's transaction no savepoint is needed: its commit covers both inserts.
  await inTransaction(knex, async (trx) => {
    await trx('emails').insert(columnsOf(e));
    await insertAttachments(trx, e.id, e.attachments);
  });
}

export async function insertAttachments(knex: Knex, emailId: string, attachments: NewEmail['attachments']): Promise<void> {
  if (!attachments?.length) return;
  await knex('email_attachments').insert(
    attachments.map((a) => ({ email_id: emailId, filename: a.filename, content_type: a.contentType ?? null, content: Buffer.from(a.content, 'base64') })),
  );
}

/** Columns a linked email takes from the contact written with it: its id, stored address, template variables. */
const FROM_CONTACT: Record<string, string> = { contact_id: 'id', to_email: 'email', variables: 'variables' };

/**
 * The email row for a contact written in the same statement (db/contactWriters upsertContactWith), so the
 * contact change and its email commit together. Attachments go separately (insertAttachments).
 */
export function linkedEmail(e: Omit<NewEmail, 'contactId' | 'variables' | 'attachments' | 'to'> & { toName?: string | null }): LinkedInsert {
  const row: Record<string, Knex.RawBinding> = columnsOf({ ...e, contactId: null, to: { email: '', name: e.toName }, variables: {} });
  const columns = Object.keys(row);
  return {
    sql: `INSERT INTO emails (${columns.join(', ')}) SELECT ${columns.map((c) => FROM_CONTACT[c] ?? '?').join(', ')} FROM written RETURNING id`,
    bindings: columns.filter((c) => !FROM_CONTACT[c]).map((c) => row[c]),
  };
}

export async function getEmail(knex: Knex, id: string): Promise<EmailRow | undefined> {
  return knex<EmailRow>('emails').where({ id }).first();
}

export interface StoredAttachment {
  filename: string;
  contentType: string | null;
  /** base64 */
  content: string;
}

/** The attachments of many emails in one read, by email id (emails without any are absent). */
export async function attachmentsOf(knex: Knex, ids: string[]): Promise<Map<string, StoredAttachment[]>> {
  const out = new Map<string, StoredAttachment[]>();
  if (!ids.length) return out;
  const rows = await knex('email_attachments').whereIn('email_id', ids).orderBy('id');
  for (const r of rows as Array<{ email_id: string; filename: string; content_type: string | null; content: Buffer }>) {
    out.set(r.email_id, [...(out.get(r.email_id) ?? []), { filename: r.filename, contentType: r.content_type, content: r.content.toString('base64') }]);
  }
  return out;
}

export async function emailAttachments(knex: Knex, id: string): Promise<StoredAttachment[]> {
  return (await attachmentsOf(knex, [id])).get(id) ?? [];
}

/** Why a SUPPRESSED email was not handed over (its `error`). */
export const SUPPRESSED_REASON = "the recipient's address is on the project's suppression list";

/**
 * Single emails still QUEUED `minutes` after they were written (their delivery never started),
 * oldest first. Emails of a batch are the batch's (db/deliveryBatches orphanedBatches).
 */
export async function orphanedQueuedEmails(
  db: Knex,
  minutes: number,
  limit: number,
): Promise<Pick<EmailRow, 'id' | 'project_id' | 'contact_id' | 'to_email'>[]> {
  return db('emails')
    .where({ status: 'QUEUED' })
    .whereNull('campaign_id')
    .whereNull('delivery_workflow')
    .where('created_at', '<', db.raw(`now() - make_interval(mins => ?)`, [minutes]))
    .orderBy('created_at')
    .limit(limit)
    .select('id', 'project_id', 'contact_id', 'to_email');
}
