import type { Knex } from 'knex';

/**
 * A compute's entries and exits are recorded once, by their `segment.<slug>.entry|exit` events,
 * which carry the segment's id and name: the contact's timeline reads them from there
 * (db/contactTimeline.ts), and a compute no longer writes a `segment_membership_changes` row beside
 * each event (db/segmentCompute.ts). That row, its two index entries, its id and its foreign key
 * check were about a sixth of a member's cost (docs/benchmarks.md, "Segment compute, one record per
 * change"). The table keeps a static segment's list changes.
 *
 * The compute rows written before are deleted where their event still says the same thing (same
 * contact, same transaction time, same segment and change), so the timeline does not show a change
 * twice; a row whose event is gone (deleted by name, or by events retention) stays and is still shown.
 */
const TOLD_BY_EVENT = `
  EXISTS (SELECT 1 FROM events e
           WHERE e.contact_id = h.contact_id AND e.created_at = h.created_at
             AND e.name ~ '^segment\\..*\\.(entry|exit)$' AND e.name LIKE '%.' || h.change
             AND e.data->>'segmentId' = h.segment_id::text)`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`DELETE FROM segment_membership_changes h WHERE h.source = 'compute' AND ${TOLD_BY_EVENT}`);
}

/** Writes the rows back from the events (under the event's id), for the code before this migration. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    INSERT INTO segment_membership_changes (id, project_id, contact_id, segment_id, segment_name, change, source, created_at)
    SELECT e.id, e.project_id, e.contact_id, (e.data->>'segmentId')::uuid, e.data->>'segmentName', substring(e.name from '[^.]+$'), 'compute', e.created_at
      FROM events e
     WHERE e.name ~ '^segment\\..*\\.(entry|exit)$' AND e.contact_id IS NOT NULL AND e.data->>'segmentId' IS NOT NULL AND e.data->>'segmentName' IS NOT NULL
    ON CONFLICT (id) DO NOTHING`);
}
