import type { Knex } from 'knex';

/**
 * Double opt-in (docs/api.md "Double opt-in"). A project's settings say who the confirmation email
 * comes from and what it says (a template of the project, or the built-in text), whether new
 * contacts of POST /contacts and /v1/track need it by default, and how long a link stays valid. A
 * pending contact is unsubscribed and has a row here until it confirms or the row expires.
 */

export interface DoubleOptInSettings {
  /** Asked of every new subscription through POST /contacts and /v1/track unless a request says `doubleOptIn: false`. */
  enabled: boolean;
  from: string;
  fromName?: string | null;
  /** A template of the project for the confirmation email; null: the built-in one. */
  templateId?: string | null;
  /** How long a confirmation link stays valid. */
  expiryHours: number;
}

export const DEFAULT_EXPIRY_HOURS = 72;

export async function doubleOptInSettings(db: Knex, projectId: string): Promise<DoubleOptInSettings | null> {
  const row = await db('projects').where({ id: projectId }).first('double_opt_in');
  return row?.double_opt_in ?? null;
}

export async function setDoubleOptInSettings(db: Knex, projectId: string, settings: DoubleOptInSettings | null): Promise<void> {
  await db('projects')
    .where({ id: projectId })
    .update({ double_opt_in: settings === null ? null : JSON.stringify(settings), updated_at: db.fn.now() });
}

/** Records (or renews, for a repeated signup) the contact's pending confirmation. */
export async function markPending(db: Knex, c: { projectId: string; contactId: string; emailId: string; expiryHours: number }): Promise<void> {
  await db.raw(
    `INSERT INTO contact_confirmations (contact_id, project_id, email_id, expires_at)
     VALUES (?, ?, ?, now() + ? * interval '1 hour')
     ON CONFLICT (contact_id) DO UPDATE SET email_id = EXCLUDED.email_id, created_at = now(), expires_at = EXCLUDED.expires_at`,
    [c.contactId, c.projectId, c.emailId, c.expiryHours],
  );
}

/** Whether the contact waits for its confirmation (an expired one does not count). */
export async function isPending(db: Knex, contactId: string): Promise<boolean> {
  return !!(await db('contact_confirmations').where({ contact_id: contactId }).andWhere('expires_at', '>', db.fn.now()).first('contact_id'));
}

/** Takes the contact's live confirmation: true once, false when there is none or it expired. */
export async function consumeConfirmation(db: Knex, projectId: string, contactId: string): Promise<boolean> {
  const n = await db('contact_confirmations').where({ project_id: projectId, contact_id: contactId }).andWhere('expires_at', '>', db.fn.now()).del();
  return n > 0;
}

/** Drops expired confirmations (the maintenance sweep); their contacts stay unsubscribed. */
export async function pruneExpiredConfirmations(db: Knex): Promise<number> {
  return db('contact_confirmations').where('expires_at', '<=', db.fn.now()).del();
}
