import type { Knex } from 'knex';
import { subtract } from './059_event_rollups';

/**
 * Deleting a project that had events failed: the cascade deletes its events, the statement trigger of
 * migration 059 then subtracts them from the hourly counts by *inserting* a negative row per hour
 * (the slot's row may not exist), and that row's key names the project the same statement has just
 * deleted: `event_hourly_counts_project_id_fkey` refused it and the whole DELETE rolled back.
 *
 * The hourly subtraction now skips events whose project is gone: their hourly rows go by the cascade
 * anyway. Only the delete trigger changes: retention's svc_event_rollups_forget (migration 060) runs
 * on detached partitions, outside any project's deletion.
 */
const liveOnly = (source: string) => `(SELECT x.* FROM ${source} x WHERE EXISTS (SELECT 1 FROM projects p WHERE p.id = x.project_id))`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE OR REPLACE FUNCTION svc_event_rollups_delete() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN ${subtract(liveOnly('old_events'))} RETURN NULL; END $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`CREATE OR REPLACE FUNCTION svc_event_rollups_delete() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN ${subtract('old_events')} RETURN NULL; END $$`);
}
