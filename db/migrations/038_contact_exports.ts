import type { Knex } from 'knex';

/**
 * Contact exports (docs/api.md "Contact export"): an EXPORT job stages the ids of the contacts to
 * export in `job_rows` like any job; `contact_exports` keeps the columns the file has (fixed when the
 * job is created, so every line matches the header), and `contact_export_lines` the CSV lines the
 * batches write, row 0 being the header. They go with their job (ON DELETE CASCADE), which the
 * maintenance sweep deletes a day after it finished: an export is a copy of personal data.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE jobs DROP CONSTRAINT IF EXISTS jobs_type_check');
  await knex.raw(`ALTER TABLE jobs ADD CONSTRAINT jobs_type_check CHECK (type IN ('IMPORT', 'BULK_SUBSCRIBE', 'BULK_UNSUBSCRIBE', 'BULK_DELETE', 'EXPORT'))`);
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS contact_exports (
      job_id uuid PRIMARY KEY REFERENCES jobs(id) ON DELETE CASCADE,
      columns jsonb NOT NULL
    )`);
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS contact_export_lines (
      job_id uuid NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
      row_number integer NOT NULL,
      line text NOT NULL,
      PRIMARY KEY (job_id, row_number)
    )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS contact_export_lines');
  await knex.raw('DROP TABLE IF EXISTS contact_exports');
  await knex.raw(`DELETE FROM jobs WHERE type = 'EXPORT'`);
  await knex.raw('ALTER TABLE jobs DROP CONSTRAINT IF EXISTS jobs_type_check');
  await knex.raw(`ALTER TABLE jobs ADD CONSTRAINT jobs_type_check CHECK (type IN ('IMPORT', 'BULK_SUBSCRIBE', 'BULK_UNSUBSCRIBE', 'BULK_DELETE'))`);
}
