import type { Knex } from 'knex';
import { uuid } from '../lib/ids';

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
 * Inserts event rows, many per statement (a first segment compute writes one per member). A row
 * whose given id exists already inserts nothing and is not returned: a retried writer adds nothing.
 * Pass the caller's transaction so the events commit with the change they describe.
 */
export async function recordEvents(db: Knex, events: NewEvent[]): Promise<EventRow[]> {
  const out: EventRow[] = [];
  for (let i = 0; i < events.length; i += INSERT_CHUNK) {
    out.push(
      ...(await db<EventRow>('events')
        .insert(events.slice(i, i + INSERT_CHUNK).map(rowOf))
        .onConflict('id')
        .ignore()
        .returning('*')),
    );
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
