import type { Knex } from 'knex';
import type { ConsentSource } from '../lib/consentSources';

/**
 * The consent record (docs/privacy.md "Consent record"): every change of a contact's `subscribed`
 * flag or of a topic state, with its source and, for changes the person made through a link in our
 * emails, the address and User-Agent of their browser. Written only by db/contactWriters (imports:
 * db/contactBatchWriter) and db/topics, inside the change's own transaction (or statement), so no
 * change is ever without its record.
 */

export type ConsentScope = 'global' | 'topic';

/** Where a change came from, beyond its source: the person's browser on the link pages. */
export interface ConsentOrigin {
  ip?: string | null;
  userAgent?: string | null;
}

export interface ConsentRow {
  id: string;
  project_id: string;
  contact_id: string;
  scope: ConsentScope;
  topic_id: string | null;
  topic_slug: string | null;
  value: boolean;
  source: string;
  at: Date;
  ip: string | null;
  user_agent: string | null;
}

/** A change without a named source came through the API. */
export const consentSource = (source?: ConsentSource): ConsentSource => source ?? 'api';

/** Bounded so a hostile User-Agent header cannot bloat the record. */
export const originBindings = (origin?: ConsentOrigin): [string | null, string | null] => [
  origin?.ip?.slice(0, 64) ?? null,
  origin?.userAgent?.slice(0, 512) ?? null,
];

export interface NewConsent {
  projectId: string;
  contactId: string;
  scope: ConsentScope;
  topic?: { id: string; slug: string };
  value: boolean;
  source?: ConsentSource;
  origin?: ConsentOrigin;
}

export async function recordConsent(db: Knex, records: NewConsent[]): Promise<void> {
  if (!records.length) return;
  await db('consent_records').insert(
    records.map((r) => {
      const [ip, userAgent] = originBindings(r.origin);
      return {
        project_id: r.projectId,
        contact_id: r.contactId,
        scope: r.scope,
        topic_id: r.topic?.id ?? null,
        topic_slug: r.topic?.slug ?? null,
        value: r.value,
        source: consentSource(r.source),
        ip,
        user_agent: userAgent,
      };
    }),
  );
}

/** A contact's record, oldest first, one page at a time. */
export async function listConsent(
  db: Knex,
  projectId: string,
  contactId: string,
  page: number,
  pageSize: number,
): Promise<{ rows: ConsentRow[]; total: number }> {
  const filtered = () => db('consent_records').where({ project_id: projectId, contact_id: contactId });
  const [rows, counted] = await Promise.all([
    filtered()
      .select('*')
      .orderBy('id', 'asc')
      .limit(pageSize)
      .offset((page - 1) * pageSize),
    filtered().count<{ count: string }[]>('* as count'),
  ]);
  return { rows, total: Number(counted[0].count) };
}

// ───────────────────────────── the consent rule ─────────────────────────────

/** What the consent rule asks of mail: its type, and the topic it is sent as (null: none). */
export interface ConsentedMail {
  type: string;
  topicId: string | null;
}

/**
 * May this contact receive this mail now: MARKETING mail goes only to contacts subscribed globally;
 * mail sent as a topic, whatever its type, only to contacts subscribed globally and to the topic
 * (its state as db/topics reads it); TRANSACTIONAL and HEADLESS mail of no topic to anyone. The
 * reason it may not, or null. Campaign batches (activities/campaigns.ts) and the SEND_EMAIL step
 * (activities/steps/sendEmail.ts) ask this; a campaign's audience (db/campaignAudience.ts) asks
 * consentedSql, the same rule as a condition.
 */
export function consentRefusal(
  mail: ConsentedMail,
  contact: { subscribed: boolean | null; topicSubscribed?: boolean | null },
): 'unsubscribed' | 'topic_unsubscribed' | null {
  if ((mail.type === 'MARKETING' || mail.topicId) && contact.subscribed !== true) return 'unsubscribed';
  if (mail.topicId && contact.topicSubscribed !== true) return 'topic_unsubscribed';
  return null;
}

/**
 * consentRefusal as a condition over the contacts row `c` (with `topicState(topicAlias)`, the
 * contact's state of a `topics` row, db/topics topicStateSql); null when the mail needs no consent.
 */
export function consentedSql(mail: ConsentedMail, c: string, topicState: (topic: string) => string): { sql: string; bindings: string[] } | null {
  if (mail.topicId)
    return { sql: `${c}.subscribed = true AND EXISTS (SELECT 1 FROM topics t WHERE t.id = ? AND ${topicState('t')})`, bindings: [mail.topicId] };
  if (mail.type === 'MARKETING') return { sql: `${c}.subscribed = true`, bindings: [] };
  return null;
}
