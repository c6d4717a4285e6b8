import type { Knex } from 'knex';
import { CONTACT_SUBSCRIBED, CONTACT_UNSUBSCRIBED } from '../lib/contactData';
import { TimeCursor, TimePage, timePage } from './eventQueries';
import { timeKeySql } from './cursors';
import { EMAIL_EVENT_NAMES } from './emails';

/**
 * The activity feed (GET /activity…): one newest-first stream of what happened in a project.
 *
 * Email lifecycle items are the `email.*` event rows the service records (docs/api.md, "Activity": deliverEmail
 * records `email.sent` once per email, provider notifications one event per notification, so a
 * repeated open is a second item); the email row they name supplies subject and recipient. An email that FAILED records no event, so failures come
 * from `emails` rows (at their last update). Every other event row is a subscription change or a
 * tracked/emitted event. Nothing is stored twice; the feed is a read model over both tables.
 */

const EMAIL_EVENT_TYPES = EMAIL_EVENT_NAMES;

const NAMED_EVENT_TYPES = {
  ...EMAIL_EVENT_TYPES,
  subscribed: CONTACT_SUBSCRIBED,
  unsubscribed: CONTACT_UNSUBSCRIBED,
  // Mail the inbound server took for the project (docs/inbound.md); its event says who wrote what.
  inbound: 'email.received',
} as const;

export const ACTIVITY_TYPES = [...(Object.keys(NAMED_EVENT_TYPES) as Array<keyof typeof NAMED_EVENT_TYPES>), 'failed', 'event'] as const;
export type ActivityType = (typeof ACTIVITY_TYPES)[number];

export const ACTIVITY_TYPE_DESCRIPTIONS: Record<ActivityType, string> = {
  sent: 'an email was handed to the provider',
  delivered: 'the provider reported the email delivered',
  opened: 'the recipient opened the email (each open the provider reports)',
  clicked: 'the recipient clicked a link in the email (each click the provider reports)',
  bounced: 'the email bounced',
  complained: 'the recipient marked the email as spam',
  suppressed: "the email was not sent: its recipient is on the project's suppression list",
  replied: 'the recipient answered the email (a reply received by the inbound server)',
  inbound: 'mail received by the inbound server for the project (the event holds sender, subject and text)',
  subscribed: 'a contact became subscribed',
  unsubscribed: 'a contact became unsubscribed',
  failed: 'an email could not be sent (render or provider failure)',
  event: 'any other event: tracked by the API, or emitted by the service (segment entry/exit, …)',
};

/** Event names with a type of their own; every other name is of type `event`. */
export const TYPED_EVENT_NAMES: readonly string[] = Object.values(NAMED_EVENT_TYPES);

const typeOfName = new Map<string, ActivityType>(Object.entries(NAMED_EVENT_TYPES).map(([type, name]) => [name, type as ActivityType]));
const activityTypeOf = (eventName: string): ActivityType => typeOfName.get(eventName) ?? 'event';

/** Restricts an `events e` query to the rows of the given types (none of them: no rows). */
export function whereEventTypes(q: Knex.QueryBuilder, types: readonly ActivityType[]) {
  const names = types.flatMap((t) => (t in NAMED_EVENT_TYPES ? [NAMED_EVENT_TYPES[t as keyof typeof NAMED_EVENT_TYPES]] : []));
  const other = types.includes('event');
  if (other && names.length === TYPED_EVENT_NAMES.length) return q;
  return q.andWhere((b) => {
    if (names.length) b.orWhereIn('e.name', names);
    if (other) b.orWhereNotIn('e.name', TYPED_EVENT_NAMES);
    if (!names.length && !other) b.whereRaw('false');
  });
}

// ───────────────────────────── the feed ─────────────────────────────

export interface ActivityItem {
  id: string;
  type: ActivityType;
  occurredAt: Date;
  contact: { id: string; email: string | null } | null;
  email: { id: string; subject: string; to: string; campaignId: string | null; templateId: string | null; error: string | null } | null;
  event: { name: string; data: Record<string, unknown> } | null;
}

export interface ActivityFeedInput {
  projectId: string;
  limit: number;
  after?: TimeCursor;
  /** Omitted: every type. */
  types?: readonly ActivityType[];
  from?: Date;
  to?: Date;
}

interface FeedRow {
  id: string;
  at: Date;
  sort_key: string;
  name: string | null;
  contact_id: string | null;
  data: Record<string, unknown> | null;
  email_id: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Newest first, keyset over (time, id). Each source is read with its own index and limited to one
 * page, then the two are merged: the page costs O(limit) whatever the project's history.
 */
export async function activityFeed(db: Knex, input: ActivityFeedInput): Promise<TimePage<ActivityItem>> {
  const types = input.types ?? ACTIVITY_TYPES;
  const eventTypes = types.filter((t) => t !== 'failed');
  const window = (q: Knex.QueryBuilder, column: string, idColumn: string) => {
    if (input.from) q.andWhere(column, '>=', input.from);
    if (input.to) q.andWhere(column, '<', input.to);
    if (input.after) q.andWhereRaw(`(${column}, ${idColumn}) < (?::timestamptz, ?::uuid)`, [input.after.at, input.after.id]);
    return q
      .orderBy([
        { column, order: 'desc' },
        { column: idColumn, order: 'desc' },
      ])
      .limit(input.limit + 1);
  };
  const events: Promise<FeedRow[]> = eventTypes.length
    ? window(
        whereEventTypes(
          db({ e: 'events' })
            .where('e.project_id', input.projectId)
            .select(
              'e.id',
              'e.created_at as at',
              db.raw(`${timeKeySql('e.created_at')} AS sort_key`),
              'e.name',
              'e.contact_id',
              'e.data',
              db.raw('NULL::uuid AS email_id'),
            ),
          eventTypes,
        ),
        'e.created_at',
        'e.id',
      )
    : Promise.resolve([]);
  const failed: Promise<FeedRow[]> = types.includes('failed')
    ? window(
        db({ m: 'emails' })
          .where({ 'm.project_id': input.projectId, 'm.status': 'FAILED' })
          .select(
            'm.id',
            'm.updated_at as at',
            db.raw(`${timeKeySql('m.updated_at')} AS sort_key`),
            db.raw('NULL::text AS name'),
            'm.contact_id',
            db.raw('NULL::jsonb AS data'),
            'm.id as email_id',
          ),
        'm.updated_at',
        'm.id',
      )
    : Promise.resolve([]);
  // sort_key is fixed-width UTC and Postgres orders uuids as their lowercase hex, so strings compare like SQL did.
  const merged = [...(await events), ...(await failed)]
    .sort((a, b) => (a.sort_key === b.sort_key ? (a.id < b.id ? 1 : -1) : a.sort_key < b.sort_key ? 1 : -1))
    .slice(0, input.limit + 1);
  const page = timePage(merged, input.limit);
  return { ...page, rows: await present(db, input.projectId, page.rows) };
}

/** Adds contact addresses and email details to a page of rows, two indexed look-ups in all. */
async function present(db: Knex, projectId: string, rows: Omit<FeedRow, 'sort_key'>[]): Promise<ActivityItem[]> {
  const emailIdOf = (r: Omit<FeedRow, 'sort_key'>) => {
    if (r.email_id) return r.email_id;
    const id = r.name !== null && activityTypeOf(r.name) in EMAIL_EVENT_TYPES ? r.data?.emailId : undefined;
    return typeof id === 'string' && UUID.test(id) ? id : null;
  };
  const emailIds = [...new Set(rows.map(emailIdOf).filter((id): id is string => id !== null))];
  const contactIds = [...new Set(rows.map((r) => r.contact_id).filter((id): id is string => id !== null))];
  const [emails, contacts] = await Promise.all([
    emailIds.length
      ? db('emails')
          .where('project_id', projectId)
          .whereIn('id', emailIds)
          .select('id', 'subject', 'rendered_subject', 'to_email', 'campaign_id', 'template_id', 'error')
      : [],
    contactIds.length ? db('contacts').where('project_id', projectId).whereIn('id', contactIds).select('id', 'email') : [],
  ]);
  const emailById = new Map(emails.map((m: any) => [m.id, m]));
  const contactEmail = new Map(contacts.map((c: any) => [c.id, c.email as string]));
  return rows.map((r) => {
    const m = emailById.get(emailIdOf(r) ?? '');
    const type: ActivityType = r.name === null ? 'failed' : activityTypeOf(r.name);
    return {
      id: r.id,
      type,
      occurredAt: r.at,
      contact: r.contact_id ? { id: r.contact_id, email: contactEmail.get(r.contact_id) ?? null } : null,
      email: m
        ? { id: m.id, subject: m.rendered_subject ?? m.subject, to: m.to_email, campaignId: m.campaign_id, templateId: m.template_id, error: m.error }
        : null,
      event: r.name !== null && !(type in EMAIL_EVENT_TYPES) ? { name: r.name, data: r.data ?? {} } : null,
    };
  });
}

// ───────────────────────────── counts ─────────────────────────────

/** Activity items per type in [from, to); every type is present, zero when nothing happened. */
export async function activityCounts(db: Knex, projectId: string, from: Date, to: Date): Promise<Record<ActivityType, number>> {
  const named = Object.entries(NAMED_EVENT_TYPES);
  const typeCase = `CASE name ${named.map(() => 'WHEN ? THEN ?').join(' ')} ELSE 'event' END`;
  const [byType, [failed]] = await Promise.all([
    db('events')
      .where('project_id', projectId)
      .andWhere('created_at', '>=', from)
      .andWhere('created_at', '<', to)
      .select(
        db.raw(
          `${typeCase} AS type`,
          named.flatMap(([type, name]) => [name, type]),
        ),
        db.raw('count(*)::int AS count'),
      )
      .groupByRaw('1') as Promise<Array<{ type: ActivityType; count: number }>>,
    db('emails')
      .where({ project_id: projectId, status: 'FAILED' })
      .andWhere('updated_at', '>=', from)
      .andWhere('updated_at', '<', to)
      .select(db.raw('count(*)::int AS count')) as Promise<Array<{ count: number }>>,
  ]);
  const counts = Object.fromEntries(ACTIVITY_TYPES.map((t) => [t, 0])) as Record<ActivityType, number>;
  for (const r of byType) counts[r.type] = r.count;
  counts.failed = failed.count;
  return counts;
}

// ───────────────────────────── upcoming ─────────────────────────────

export interface UpcomingCampaign {
  id: string;
  name: string;
  scheduledFor: Date;
}

export interface UpcomingExecution {
  id: string;
  workflowId: string;
  workflowName: string;
  contactId: string;
  contactEmail: string | null;
  status: 'RUNNING' | 'WAITING';
  /** The event a WAIT_FOR_EVENT step waits for. */
  waitingFor: string | null;
  waitingSince: Date | null;
  /** When the execution's timer fires (DELAY, or a wait's timeout); null when unknown or untimed. */
  wakeAt: Date | null;
}

/**
 * Scheduled campaigns (soonest first) and active workflow executions (the soonest to wake first,
 * then the longest waiting).
 */
export async function upcoming(db: Knex, projectId: string, limit: number): Promise<{ campaigns: UpcomingCampaign[]; executions: UpcomingExecution[] }> {
  const campaigns = db('campaigns')
    .where({ project_id: projectId, status: 'SCHEDULED' })
    .orderBy([{ column: 'scheduled_for', order: 'asc', nulls: 'last' }, { column: 'id' }])
    .limit(limit)
    .select('id', 'name', 'scheduled_for as scheduledFor');
  const executions = async (): Promise<UpcomingExecution[]> => {
    return (
      db({ x: 'workflow_executions' })
        .join({ w: 'workflows' }, 'w.id', 'x.workflow_id')
        .leftJoin({ c: 'contacts' }, 'c.id', 'x.contact_id')
        .where('x.project_id', projectId)
        .whereIn('x.status', ['RUNNING', 'WAITING'])
        // Test runs (POST /workflows/:id/test) are the tester's, not what the project has coming.
        .whereNull('x.test')
        .orderByRaw('x.wake_at ASC NULLS LAST, x.waiting_since ASC NULLS LAST, x.id')
        .limit(limit)
        .select(
          'x.id',
          'x.workflow_id as workflowId',
          'w.name as workflowName',
          'x.contact_id as contactId',
          'c.email as contactEmail',
          'x.status',
          'x.waiting_for as waitingFor',
          'x.waiting_since as waitingSince',
          'x.wake_at as wakeAt',
        )
    );
  };
  const [c, x] = await Promise.all([campaigns, executions()]);
  return { campaigns: c, executions: x };
}
