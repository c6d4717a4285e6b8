import type { Knex } from 'knex';

/** PAUSED joins the campaign statuses (POST /campaigns/:id/pause and /resume). */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE campaigns DROP CONSTRAINT campaigns_status_check');
  await knex.raw(
    `ALTER TABLE campaigns ADD CONSTRAINT campaigns_status_check CHECK (status IN ('DRAFT', 'SCHEDULED', 'SENDING', 'PAUSED', 'SENT', 'CANCELLED'))`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`UPDATE campaigns SET status = 'SENDING' WHERE status = 'PAUSED'`);
  await knex.raw('ALTER TABLE campaigns DROP CONSTRAINT campaigns_status_check');
  await knex.raw(`ALTER TABLE campaigns ADD CONSTRAINT campaigns_status_check CHECK (status IN ('DRAFT', 'SCHEDULED', 'SENDING', 'SENT', 'CANCELLED'))`);
}
