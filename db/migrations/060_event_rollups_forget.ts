import type { Knex } from 'knex';
import { subtract } from './059_event_rollups';

/**
 * `svc_event_rollups_forget(part)`: takes the rows of a table shaped like events (a detached monthly
 * partition) out of the event rollups of migration 059. Dropping or detaching a partition fires no
 * DELETE trigger, and a statement on a partition fires none of the parent's statement triggers, so
 * db/eventPartitions.ts calls it between DETACH and DROP; what it puts back (the rows retention
 * keeps) goes through the parent and is counted again by the insert trigger.
 */
export async function up(knex: Knex): Promise<void> {
  // One EXECUTE per statement; the relation is quoted by format's %s of a regclass.
  const statements = subtract('@@SOURCE@@')
    .split(';')
    .map((st) => st.trim())
    .filter(Boolean)
    .map((st) => `EXECUTE format($q$${st.replace(/%/g, '%%').replace('@@SOURCE@@', '%1$s')}$q$, part);`);
  await knex.raw(`CREATE OR REPLACE FUNCTION svc_event_rollups_forget(part regclass) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      ${statements.join('\n      ')}
    END $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION IF EXISTS svc_event_rollups_forget(regclass)');
}
