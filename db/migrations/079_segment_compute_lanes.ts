import type { Knex } from 'knex';

/**
 * A compute run walks the project's contacts in lanes side by side (db/segmentCompute.ts): each lane
 * a range of contact ids with its own keyset cursor and counters, so its chunks run on their own
 * Postgres backend without waiting on another lane's (a run row's single cursor made chunks one after
 * another, leaving a core idle). The run row keeps its status and, once finished, the lanes' totals.
 * A run begun before this migration gets one lane carrying its cursor, status and counters when it
 * resumes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('segment_compute_lanes', (t) => {
    t.text('run_id').notNullable().references('segment_computes.id').onDelete('CASCADE');
    t.smallint('lane').notNullable();
    // Last contact id of the lane's range, inclusive; NULL: open-ended (the last lane, where contacts created meanwhile land).
    t.text('hi');
    // Last contact id walked; the range's lower bound (exclusive) before the first chunk.
    t.text('cursor').notNullable();
    t.text('status').notNullable().defaultTo('RUNNING');
    t.integer('entered').notNullable().defaultTo(0);
    t.integer('exited').notNullable().defaultTo(0);
    t.primary(['run_id', 'lane']);
  });
  await knex.raw(`ALTER TABLE segment_compute_lanes ADD CONSTRAINT segment_compute_lanes_status CHECK (status IN ('RUNNING', 'WALKED'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('segment_compute_lanes');
}
