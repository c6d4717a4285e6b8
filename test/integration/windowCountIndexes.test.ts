import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { createKnex, dropDatabase, ensureDatabase, migrateLatest } from '../../db/knex';
import { ensureEventPartitions } from '../../db/eventPartitions';
import * as migration from '../../db/migrations/077_window_count_indexes';

/**
 * Migration 077 (the indexes the windowed event filters read alone; docs/capacity.md): the events
 * parent's `(project_id, name, created_at) INCLUDE (contact_id)` is valid with every partition's
 * attached, the index it replaces is gone, a partition created afterwards gets its own, and a run
 * that died half-way (a partition's index dropped) is finished by running it again. A database of
 * its own: the test drops and rebuilds indexes of events.
 */

let url: string;
let knex: Knex;

beforeAll(async () => {
  const u = new URL(process.env.DATABASE_URL!);
  u.pathname = `/${u.pathname.slice(1)}_w77_${crypto.randomBytes(3).toString('hex')}`;
  url = u.toString();
  await ensureDatabase(url);
  knex = createKnex(url);
  await migrateLatest(knex);
});
afterAll(async () => {
  await knex?.destroy();
  if (url) await dropDatabase(url);
});

/** Each partition of events and the index of the parent's new index it has attached (null: none). */
async function attached(): Promise<Record<string, string | null>> {
  const { rows } = await knex.raw(
    `SELECT c.relname AS partition,
            (SELECT ic.relname FROM pg_inherits ii JOIN pg_class ic ON ic.oid = ii.inhrelid
              WHERE ii.inhparent = 'events_project_name_created_contact'::regclass
                AND ic.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = c.oid)) AS index
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'events'::regclass`,
  );
  return Object.fromEntries(rows.map((r: { partition: string; index: string | null }) => [r.partition, r.index]));
}

const definition = async (name: string) =>
  (
    await knex.raw('SELECT pg_get_indexdef(c.oid) AS def, i.indisvalid AS valid FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid WHERE c.relname = ?', [
      name,
    ])
  ).rows[0] as { def: string; valid: boolean } | undefined;

it('replaces both indexes with their INCLUDE forms, on every partition, for partitions made later too, and resumes a half-done run', async () => {
  expect(await definition('events_project_name_created_contact')).toEqual({
    def: expect.stringContaining('(project_id, name, created_at) INCLUDE (contact_id)'),
    valid: true,
  });
  expect(await definition('events_project_id_name_created_at_index')).toBeUndefined();
  expect((await definition('contact_event_rollups_name_last'))?.def).toContain('(project_id, name, last_at) INCLUDE (contact_id, count)');
  expect(await definition('contact_event_rollups_name_last_contact')).toBeUndefined();
  expect(Object.values(await attached()).every(Boolean)).toBe(true);

  const made = await ensureEventPartitions(knex, 8);
  expect(made.length).toBeGreaterThan(0);
  const after = await attached();
  for (const partition of made) expect(after[partition]).toBeTruthy();

  // Half-done: the parent's index created ON ONLY and one partition's attached, the others not yet, the old index still there.
  await knex.raw('DROP INDEX events_project_name_created_contact');
  await knex.raw('CREATE INDEX events_project_name_created_contact ON ONLY events (project_id, name, created_at) INCLUDE (contact_id)');
  const [first, ...rest] = Object.keys(after);
  await knex.raw(`CREATE INDEX done_one ON "${first}" (project_id, name, created_at) INCLUDE (contact_id)`);
  await knex.raw('ALTER INDEX events_project_name_created_contact ATTACH PARTITION done_one');
  expect((await definition('events_project_name_created_contact'))?.valid).toBe(false);
  expect((await attached())[rest[0]]).toBeNull();
  await knex.raw('CREATE INDEX events_project_id_name_created_at_index ON events (project_id, name, created_at)');
  await migration.up(knex);
  expect((await definition('events_project_name_created_contact'))?.valid).toBe(true);
  expect(Object.values(await attached()).every(Boolean)).toBe(true);
  expect((await attached())[first]).toBe('done_one');
  expect(await definition('events_project_id_name_created_at_index')).toBeUndefined();
});
