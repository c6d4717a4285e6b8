import type { Knex } from 'knex';
import { decodeCursor, encodeCursor } from './cursors';
import { deterministicUuid } from '../lib/ids';
import { claimEventKeysSql } from './eventKeys';

/**
 * The per-project suppression list (docs/api.md "Suppressions"): addresses no mail of the project
 * is handed to. Addresses are stored lowercase; an entry whose `expires_at` has passed no longer
 * suppresses. Hard bounces and complaints add entries (services/providerEvents), the API adds
 * MANUAL ones, and every hand-over checks the list with `suppressedSql` inside its claim statement.
 */

export const SUPPRESSION_REASONS = ['HARD_BOUNCE', 'COMPLAINT', 'MANUAL'] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

export interface SuppressionRow {
  project_id: string;
  email: string;
  reason: SuppressionReason;
  email_id: string | null;
  created_at: Date;
  expires_at: Date | null;
}

export const normalizeAddress = (email: string) => email.trim().toLowerCase();

/**
 * The form an erased address keeps on the suppression list (docs/privacy.md "Erasure"):
 * `erased:` + hex sha256 of "<project id>:<lowercase address>", computed in SQL from trusted
 * expressions. The address cannot be read back from it, yet mail to the same address is still
 * recognised and refused. Salting with the project id keeps one project's entries from matching
 * another's; it does not stop someone who already has the address from confirming it was suppressed,
 * which is exactly what the check needs.
 */
export const erasedAddressSql = (projectExpr: string, lowerEmailExpr: string) =>
  `('erased:' || encode(sha256(convert_to(${projectExpr}::text || ':' || ${lowerEmailExpr}, 'UTF8')), 'hex'))`;

/**
 * SQL true when the address in `emailColumn` is suppressed for the project in `projectColumn`
 * (both trusted column names, never input), as written or in its erased form. A NULL project (the
 * service's own account mail) never is.
 */
export const suppressedSql = (projectColumn: string, emailColumn: string) =>
  `EXISTS (SELECT 1 FROM suppressions s WHERE s.project_id = ${projectColumn} AND s.email IN (lower(${emailColumn}), ${erasedAddressSql(projectColumn, `lower(${emailColumn})`)}) AND (s.expires_at IS NULL OR s.expires_at > now()))`;

/** The id of an email's `email.suppressed` event: the one activities/email recordEmailEvent derives, so every path agrees. */
export const emailSuppressedEventId = (emailId: string) => deterministicUuid(emailId, 'email.suppressed');

/** An `email.suppressed` event a claim statement wrote, for event routing. */
export interface SuppressedEvent {
  id: string;
  project_id: string;
  contact_id: string;
  name: string;
}

/**
 * Two CTEs, `suppressed_event_keys` and `suppressed_events`, that record `email.suppressed` for the
 * SUPPRESSED rows of `source` (a relation with columns id, project_id, contact_id, campaign_id,
 * status), so the claim and its events commit together. Binds `:suppressedIds` (uuid[]) and
 * `:suppressedEventIds` (uuid[], emailSuppressedEventId of each). A contact deleted meanwhile (or
 * none) gets no event; a re-run, or activities/email deriving the same id, inserts nothing new
 * (the id is claimed in event_keys first: db/eventKeys.ts).
 */
export const suppressedEventsCtes = (source: string) => {
  const due = `FROM ${source} m
    JOIN unnest(:suppressedIds::uuid[], :suppressedEventIds::uuid[]) AS u(email_id, event_id) ON u.email_id = m.id
    JOIN contacts ct ON ct.id = m.contact_id
   WHERE m.status = 'SUPPRESSED'`;
  return `suppressed_event_keys AS (${claimEventKeysSql(`SELECT u.event_id, m.project_id ${due}`)}),
  suppressed_events AS (
  INSERT INTO events (id, project_id, contact_id, name, data)
  SELECT u.event_id, m.project_id, m.contact_id, 'email.suppressed',
         jsonb_strip_nulls(jsonb_build_object('emailId', m.id, 'campaignId', m.campaign_id))
    ${due} AND u.event_id IN (SELECT id FROM suppressed_event_keys)
  RETURNING id, project_id, contact_id, name)`;
};

/** The bindings suppressedEventsCtes needs, for the email ids a claim may suppress. */
export const suppressedEventBindings = (emailIds: string[]) => ({ suppressedIds: emailIds, suppressedEventIds: emailIds.map(emailSuppressedEventId) });

export interface SuppressionPage {
  rows: SuppressionRow[];
  cursor: string | null;
  hasMore: boolean;
}

/** null for a cursor this API did not hand out. */
export function parseSuppressionCursor(raw: string): string | null {
  const v = decodeCursor(raw, 1);
  return v ? v[0] : null;
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** A page in address order; `search` is a substring of the address, `after` the last address of the previous page. */
export async function listSuppressions(
  knex: Knex,
  input: { projectId: string; limit: number; after?: string; search?: string; reason?: SuppressionReason },
): Promise<SuppressionPage> {
  const q = knex<SuppressionRow>('suppressions').where({ project_id: input.projectId });
  if (input.reason) q.andWhere({ reason: input.reason });
  if (input.search) q.andWhere('email', 'like', `%${likeEscape(input.search.toLowerCase())}%`);
  if (input.after !== undefined) q.andWhere('email', '>', input.after);
  const rows = await q.orderBy('email').limit(input.limit + 1);
  const hasMore = rows.length > input.limit;
  const kept = rows.slice(0, input.limit);
  return { rows: kept, cursor: hasMore ? encodeCursor([kept[kept.length - 1].email]) : null, hasMore };
}

/**
 * Adds MANUAL entries; addresses already on the list are left as they are (their reason and
 * expiry kept). Returns the addresses added and those that were there.
 */
export async function addSuppressions(
  knex: Knex,
  projectId: string,
  emails: string[],
  reason: SuppressionReason,
  expiresAt: Date | null,
): Promise<{ added: string[]; existing: string[] }> {
  const unique = [...new Set(emails.map(normalizeAddress))];
  const inserted = await knex('suppressions')
    .insert(unique.map((email) => ({ project_id: projectId, email, reason, expires_at: expiresAt })))
    .onConflict(['project_id', 'email'])
    .ignore()
    .returning('email');
  const added = new Set(inserted.map((r: { email: string }) => r.email));
  return { added: unique.filter((e) => added.has(e)), existing: unique.filter((e) => !added.has(e)) };
}

/**
 * An address a provider reported (hard bounce, complaint), in the caller's transaction. It
 * suppresses for good: an existing entry (a MANUAL one with an expiry, say) takes the new reason
 * and email and loses its expiry.
 */
export async function suppressFromEvent(
  trx: Knex,
  input: { projectId: string; email: string; reason: 'HARD_BOUNCE' | 'COMPLAINT'; emailId: string },
): Promise<void> {
  await trx.raw(
    `INSERT INTO suppressions (project_id, email, reason, email_id) VALUES (?, ?, ?, ?)
     ON CONFLICT (project_id, email) DO UPDATE SET reason = excluded.reason, email_id = excluded.email_id, expires_at = NULL, created_at = now()`,
    [input.projectId, normalizeAddress(input.email), input.reason, input.emailId],
  );
}

/** true when the entry was there. */
export async function deleteSuppression(knex: Knex, projectId: string, email: string): Promise<boolean> {
  // The address may be on the list in its erased form: whoever names it may lift that entry too.
  const { rowCount } = await knex.raw(
    `DELETE FROM suppressions WHERE project_id = :projectId AND email IN (:email, ${erasedAddressSql(':projectId', ':email')})`,
    {
      projectId,
      email: normalizeAddress(email),
    },
  );
  return (rowCount ?? 0) > 0;
}

/** Whether mail of the project to `email` would be suppressed now (suppressedSql's rule, for one address). */
export async function isSuppressed(knex: Knex, projectId: string, email: string): Promise<boolean> {
  const { rows } = await knex.raw(`SELECT ${suppressedSql('p.id', 'p.email')} AS suppressed FROM (SELECT ?::uuid AS id, ?::text AS email) p`, [
    projectId,
    email,
  ]);
  return rows[0].suppressed === true;
}
