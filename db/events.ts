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

/**
 * Inserts one event row. Pass the caller's transaction so the event commits with the change it describes.
 * With a given id an existing row is returned instead of a second insert.
 */
export async function recordEvent(db: Knex, event: NewEvent): Promise<EventRow> {
  const [row] = await db<EventRow>('events')
    .insert({
      id: event.id ?? uuid(),
      project_id: event.projectId,
      contact_id: event.contactId,
      name: event.name,
      // Stringified so pg never mistakes a top-level array for a Postgres array.
      data: JSON.stringify(event.data ?? {}) as any,
    })
    .onConflict('id')
    .ignore()
    .returning('*');
  return row ?? (await db<EventRow>('events').where({ id: event.id! }).first())!;
}
