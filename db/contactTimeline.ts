import type { Knex } from 'knex';
import { decodeCursor, encodeCursor, isTimeKey, timeKeySql } from './cursors';
import type { EmailSummaryRow } from './emailQueries';
import type { ExecutionStatus } from './executions';
import type { InboundKind } from './inbound';

/**
 * One contact's timeline (GET /contacts/:id/timeline): emails, tracked events, workflow runs, segment
 * and topic membership changes, consent records and inbound mail, newest first. Each source is read
 * by its own (contact_id, time DESC, id DESC) index (migrations 009, 069, 070), `limit + 1` rows
 * after the cursor, and the sources are merged here: the first `limit` of the merge are the first
 * `limit` of the union, so a page never skips or repeats an item.
 *
 * Order: time, then kind, then the source's id, all descending. The cursor carries all three, so
 * items of different kinds at the same microsecond are paged like any others.
 */

export const TIMELINE_KINDS = ['email', 'event', 'workflow', 'segment', 'topic', 'consent', 'inbound'] as const;
export type TimelineKind = (typeof TIMELINE_KINDS)[number];

export interface TimelineCursor {
  at: string;
  kind: TimelineKind;
  id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** consent_records ids are a bigint identity (migration 035). */
const BIGINT = /^[1-9]\d{0,18}$/;
const idFits = (kind: TimelineKind, id: string) => (kind === 'topic' || kind === 'consent' ? BIGINT.test(id) : UUID.test(id));

/** null for anything this API did not hand out (db/cursors). */
export function parseTimelineCursor(raw: string): TimelineCursor | null {
  const v = decodeCursor(raw, 3);
  if (!v || !isTimeKey(v[0]) || !(TIMELINE_KINDS as readonly string[]).includes(v[1])) return null;
  const kind = v[1] as TimelineKind;
  return idFits(kind, v[2]) ? { at: v[0], kind, id: v[2] } : null;
}

interface Base {
  id: string;
  at: Date;
  sort_key: string;
}

export type TimelineRow =
  | (Base & { kind: 'email' } & Pick<
        EmailSummaryRow,
        | 'subject'
        | 'status'
        | 'type'
        | 'campaign_id'
        | 'workflow_execution_id'
        | 'error'
        | 'sent_at'
        | 'delivered_at'
        | 'opened_at'
        | 'clicked_at'
        | 'bounced_at'
        | 'complained_at'
      >)
  | (Base & { kind: 'event'; name: string; data: Record<string, unknown> | null })
  | (Base & { kind: 'workflow'; workflow_id: string; workflow_name: string | null; status: ExecutionStatus; finished_at: Date | null; error: string | null })
  | (Base & { kind: 'segment'; segment_id: string; segment_name: string; change: 'entry' | 'exit'; source: 'list' | 'compute' })
  | (Base & { kind: 'topic'; topic_id: string; topic_slug: string; topic_name: string | null; value: boolean; source: string })
  | (Base & { kind: 'consent'; value: boolean; source: string })
  | (Base & { kind: 'inbound'; inbound_kind: InboundKind; subject: string | null; from_address: string | null; email_id: string | null });

/**
 * Lifecycle events other kinds already tell: an email's own story (`email.*`), the subscription
 * and topic changes of the consent record, segment entries and exits of the membership history.
 */
const TOLD_ELSEWHERE = String.raw`^(email\.|contact\.(topic\.)?(un)?subscribed$|segment\..*\.(entry|exit)$)`;
const MEMBERSHIP_EVENT = String.raw`^segment\..*\.(entry|exit)$`;

/**
 * A contact's segment entries and exits: a static segment's list changes from the membership
 * history, and a compute's from its `segment.<slug>.entry|exit` events, which carry the segment's id
 * and name (db/segmentCompute.ts writes no second record of the same change; migration 078). The
 * contact and time predicates and the keyset order reach into both branches, each read by its
 * (contact_id, created_at DESC, id DESC) index.
 */
function membershipChanges(db: Knex): Knex.QueryBuilder {
  const fromEvents = db({ e: 'events' })
    .select(
      'e.id',
      'e.project_id',
      'e.contact_id',
      'e.created_at',
      db.raw(`e.data->>'segmentId' AS segment_id`),
      db.raw(`e.data->>'segmentName' AS segment_name`),
      db.raw(`substring(e.name from '[^.]+$') AS change`),
      db.raw(`'compute' AS source`),
    )
    .whereRaw('e.name ~ ?', [MEMBERSHIP_EVENT]);
  return db({ h: 'segment_membership_changes' })
    .select('h.id', 'h.project_id', 'h.contact_id', 'h.created_at', db.raw('h.segment_id::text'), 'h.segment_name', 'h.change', 'h.source')
    .unionAll(fromEvents, true);
}

interface Source {
  /** The table (or a subquery) with its alias, the time and id columns, and how the cursor's id is cast. */
  from: Record<string, string> | ((db: Knex) => Knex.QueryBuilder);
  at: string;
  id: string;
  cast: 'uuid' | 'bigint';
  /** The project and contact columns. */
  project: string;
  contact: string;
  select: (db: Knex) => Array<string | Knex.Raw>;
  extra?: (q: Knex.QueryBuilder) => void;
}

const SOURCES: Record<TimelineKind, Source> = {
  email: {
    from: { m: 'emails' },
    at: 'm.created_at',
    id: 'm.id',
    cast: 'uuid',
    project: 'm.project_id',
    contact: 'm.contact_id',
    select: (db) => [
      db.raw('COALESCE(m.rendered_subject, m.subject) AS subject'),
      ...[
        'status',
        'type',
        'campaign_id',
        'workflow_execution_id',
        'error',
        'sent_at',
        'delivered_at',
        'opened_at',
        'clicked_at',
        'bounced_at',
        'complained_at',
      ].map((c) => `m.${c}`),
    ],
  },
  event: {
    from: { e: 'events' },
    at: 'e.created_at',
    id: 'e.id',
    cast: 'uuid',
    project: 'e.project_id',
    contact: 'e.contact_id',
    select: () => ['e.name', 'e.data'],
    extra: (q) => q.whereRaw('e.name !~ ?', [TOLD_ELSEWHERE]),
  },
  workflow: {
    from: { x: 'workflow_executions' },
    at: 'x.started_at',
    id: 'x.id',
    cast: 'uuid',
    project: 'x.project_id',
    contact: 'x.contact_id',
    select: () => ['x.workflow_id', 'w.name as workflow_name', 'x.status', 'x.finished_at', 'x.error'],
    // A test run is not the contact's run (migration 056).
    extra: (q) => q.leftJoin({ w: 'workflows' }, 'w.id', 'x.workflow_id').whereNull('x.test'),
  },
  segment: {
    from: (db) => membershipChanges(db).as('s'),
    at: 's.created_at',
    id: 's.id',
    cast: 'uuid',
    project: 's.project_id',
    contact: 's.contact_id',
    select: () => ['s.segment_id', 's.segment_name', 's.change', 's.source'],
  },
  topic: {
    from: { r: 'consent_records' },
    at: 'r.at',
    id: 'r.id',
    cast: 'bigint',
    project: 'r.project_id',
    contact: 'r.contact_id',
    select: () => ['r.topic_id', 'r.topic_slug', 't.name as topic_name', 'r.value', 'r.source'],
    extra: (q) => q.leftJoin({ t: 'topics' }, 't.id', 'r.topic_id').where('r.scope', 'topic'),
  },
  consent: {
    from: { r: 'consent_records' },
    at: 'r.at',
    id: 'r.id',
    cast: 'bigint',
    project: 'r.project_id',
    contact: 'r.contact_id',
    select: () => ['r.value', 'r.source'],
    extra: (q) => q.where('r.scope', 'global'),
  },
  inbound: {
    from: { i: 'inbound_messages' },
    at: 'i.created_at',
    id: 'i.id',
    cast: 'uuid',
    project: 'i.project_id',
    contact: 'i.contact_id',
    select: () => ['i.kind as inbound_kind', 'i.subject', 'i.from_address', 'i.email_id'],
  },
};

/** Rows of one source after the cursor, newest first: `(at, kind, id) < cursor` with this source's kind fixed. */
async function readSource(db: Knex, kind: TimelineKind, projectId: string, contactId: string, limit: number, after?: TimelineCursor): Promise<TimelineRow[]> {
  const s = SOURCES[kind];
  const from: Knex.QueryBuilder = typeof s.from === 'function' ? db.queryBuilder().from(s.from(db)) : db(s.from);
  const q = from
    .where(s.project, projectId)
    .andWhere(s.contact, contactId)
    .select(db.raw('? AS kind', [kind]), db.raw(`${s.id}::text AS id`), `${s.at} as at`, db.raw(`${timeKeySql(s.at)} AS sort_key`), ...s.select(db))
    .orderBy([
      { column: s.at, order: 'desc' },
      { column: s.id, order: 'desc' },
    ])
    .limit(limit + 1);
  s.extra?.(q);
  if (after) {
    if (kind === after.kind) q.andWhereRaw(`(${s.at}, ${s.id}) < (?::timestamptz, ?::${s.cast})`, [after.at, after.id]);
    else q.andWhere(s.at, kind < after.kind ? '<=' : '<', db.raw('?::timestamptz', [after.at]));
  }
  return (await q) as TimelineRow[];
}

export interface TimelineInput {
  projectId: string;
  contactId: string;
  limit: number;
  kinds?: readonly TimelineKind[];
  after?: TimelineCursor;
}

export interface TimelinePage {
  rows: TimelineRow[];
  cursor: string | null;
  hasMore: boolean;
}

/** A page of the contact's timeline, newest first. */
export async function contactTimeline(db: Knex, input: TimelineInput): Promise<TimelinePage> {
  const kinds = input.kinds?.length ? input.kinds : TIMELINE_KINDS;
  const parts = await Promise.all(kinds.map((k) => readSource(db, k, input.projectId, input.contactId, input.limit, input.after)));
  // Stable sort: rows of one source keep the id order SQL gave them (consent ids are numbers, not strings).
  const merged = parts
    .flat()
    .sort((a, b) => (a.sort_key === b.sort_key ? (a.kind === b.kind ? 0 : a.kind < b.kind ? 1 : -1) : a.sort_key < b.sort_key ? 1 : -1));
  const hasMore = merged.length > input.limit;
  const rows = merged.slice(0, input.limit);
  const last = rows[rows.length - 1];
  return { rows, cursor: hasMore && last ? encodeCursor([last.sort_key, last.kind, last.id]) : null, hasMore };
}
