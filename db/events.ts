import type { Knex } from 'knex';
import { uuid } from '../lib/ids';
import { matchesPatternsSql } from './webhookEndpoints';
import { claimEventKeysSql } from './eventKeys';

export interface EventRow {
  id: string;
  project_id: string;
  contact_id: string | null;
  name: string;
  data: Record<string, unknown>;
  created_at: Date;
}

export interface NewEvent {
  /** A derived id makes a retried writer insert nothing new (see lib/ids deterministicUuid). */
  id?: string;
  projectId: string;
  contactId: string | null;
  name: string;
  data?: Record<string, unknown>;
}

const INSERT_CHUNK = 1000;

const rowOf = (event: NewEvent) => ({
  id: event.id ?? uuid(),
  project_id: event.projectId,
  contact_id: event.contactId,
  name: event.name,
  // Stringified so pg never mistakes a top-level array for a Postgres array.
  data: JSON.stringify(event.data ?? {}) as any,
});

/**
 * Events of given (derived) ids: each id is claimed in event_keys first (db/eventKeys.ts) and only
 * the newly claimed ones are written, in one statement. DISTINCT ON: an id given twice in a batch
 * is written once, as ON CONFLICT did before `events` was partitioned.
 */
const CLAIMED_INSERT_SQL = `WITH input AS (
    SELECT DISTINCT ON (r.id) r.* FROM jsonb_to_recordset(?::jsonb) AS r(id uuid, project_id uuid, contact_id text, name text, data jsonb, n int) ORDER BY r.id, r.n),
  claimed AS (${claimEventKeysSql('SELECT id, project_id FROM input')})
  INSERT INTO events (id, project_id, contact_id, name, data)
  SELECT i.id, i.project_id, i.contact_id, i.name, i.data FROM input i JOIN claimed c ON c.id = i.id ORDER BY i.n
  RETURNING *`;

/**
 * Inserts event rows, many per statement (a first segment compute writes one per member). A row
 * whose given id was written already inserts nothing and is not returned: a retried writer adds
 * nothing. Pass the caller's transaction so the events commit with the change they describe.
 */
export async function recordEvents(db: Knex, events: NewEvent[]): Promise<EventRow[]> {
  const out: EventRow[] = [];
  for (let i = 0; i < events.length; i += INSERT_CHUNK) {
    const chunk = events.slice(i, i + INSERT_CHUNK);
    const fresh = chunk.filter((e) => !e.id);
    const derived = chunk.filter((e) => e.id);
    // A random id cannot collide: no claim needed (the /v1/track path never takes one either).
    if (fresh.length) out.push(...(await db<EventRow>('events').insert(fresh.map(rowOf)).returning('*')));
    if (derived.length) {
      const input = derived.map((e, n) => ({ id: e.id, project_id: e.projectId, contact_id: e.contactId, name: e.name, data: e.data ?? {}, n }));
      const { rows } = await db.raw(CLAIMED_INSERT_SQL, [JSON.stringify(input)]);
      out.push(...rows);
    }
  }
  return out;
}

/** One event; with a given id that exists already, the existing row is returned instead of a second insert. */
export async function recordEvent(db: Knex, event: NewEvent): Promise<EventRow> {
  const [row] = await recordEvents(db, [event]);
  return row ?? (await db<EventRow>('events').where({ id: event.id! }).first())!;
}

/** The events of these ids, in the order given (ids not found are left out). */
export async function eventsByIds(db: Knex, ids: string[]): Promise<EventRow[]> {
  if (!ids.length) return [];
  const rows = await db<EventRow>('events').whereIn('id', ids);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** Records that routing ran; the first time counts (markWaiting compares against it). */
export async function markEventsRouted(db: Knex, ids: string[]): Promise<void> {
  if (!ids.length) return;
  await db('events').whereIn('id', ids).whereNull('routed_at').update({ routed_at: db.fn.now() });
}

/** The routing fields of one event; undefined when it is gone. */
export async function findRoutableEvent(db: Knex, id: string): Promise<Pick<EventRow, 'id' | 'project_id' | 'contact_id' | 'name'> | undefined> {
  return db<EventRow>('events').where({ id }).first('id', 'project_id', 'contact_id', 'name');
}

/** Events left unrouted for longer than `minutes` (a crash between commit and hand-off), oldest first. */
export async function unroutedEvents(db: Knex, minutes: number, limit: number): Promise<Pick<EventRow, 'id' | 'project_id' | 'contact_id' | 'name'>[]> {
  return db('events')
    .whereNull('routed_at')
    .where('created_at', '<', db.raw(`now() - make_interval(mins => ?)`, [minutes]))
    .orderBy('created_at')
    .limit(limit)
    .select('id', 'project_id', 'contact_id', 'name');
}

export type RoutableEventRow = Pick<EventRow, 'id' | 'project_id' | 'name'> & { contact_id: string };

/**
 * SQL: may routing act on event `name` (an SQL expression) of this contact of this project? What
 * routeEvents (activities/eventBatch.ts) acts on: an enabled workflow it triggers, an enabled
 * webhook endpoint whose patterns match it, one of the contact's executions waiting for it. A
 * writer may store an event nothing can act on already routed, and spare it the routing pass.
 */
export const eventListenedSql = (project: string, contact: string, name: string) => `(
  EXISTS (SELECT 1 FROM workflows w WHERE w.project_id = ${project} AND w.enabled AND w.trigger_config->>'eventName' = ${name})
  OR EXISTS (SELECT 1 FROM webhook_endpoints h WHERE h.project_id = ${project} AND h.enabled AND ${matchesPatternsSql('h.events', name)})
  OR EXISTS (SELECT 1 FROM workflow_executions x WHERE x.contact_id = ${contact} AND x.status = 'WAITING' AND x.waiting_for = ${name}))`;

/**
 * Of events written already routed (eventListenedSql said nothing listened), those whose contact
 * has an execution waiting for them now: marked unrouted again and returned, to hand to routing.
 * It closes the gap of a wait that committed while the writing statement ran (that statement did
 * not see it, and the wait's own read of recent events did not see the uncommitted event). Run
 * after the writer's commit.
 */
export async function reopenForWaits(db: Knex, eventIds: string[]): Promise<RoutableEventRow[]> {
  if (!eventIds.length) return [];
  const { rows } = await db.raw(
    `UPDATE events e SET routed_at = NULL
      WHERE e.id = ANY(?::uuid[]) AND e.routed_at IS NOT NULL
        AND EXISTS (SELECT 1 FROM workflow_executions x WHERE x.contact_id = e.contact_id AND x.status = 'WAITING' AND x.waiting_for = e.name)
      RETURNING e.id, e.project_id, e.contact_id, e.name`,
    [eventIds],
  );
  return rows;
}
