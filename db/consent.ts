import type { Knex } from 'knex';

/**
 * The consent record (docs/privacy.md "Consent record"): every change of a contact's `subscribed`
 * flag or of a topic state, with its source and, for changes the person made through a link in our
 * emails, the address and User-Agent of their browser. Written only by db/contactWriters and db/topics,
 * inside the change's own transaction (or statement), so no change is ever without its record.
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
export const consentSource = (source?: string) => source ?? 'api';

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
  source?: string;
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
