import type { Knex } from 'knex';

/**
 * consent_records references its contact only. The contact references its project (ON DELETE
 * CASCADE both ways), so a record goes with its project through its contact, as it goes with its
 * contact on erasure; the second foreign key checked a project row already checked for the contact.
 * That check is one trigger call per record: an import batch of 5,000 new contacts writes 5,000
 * records, and EXPLAIN ANALYZE of the batch statement put the three foreign-key checks at 28 % of
 * its time, this one at 9 % (docs/benchmarks.md "Where an import's time goes").
 */
const NAME = 'consent_records_project_id_fkey';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE consent_records DROP CONSTRAINT IF EXISTS ${NAME}`);
}

export async function down(knex: Knex): Promise<void> {
  // NOT VALID, then VALIDATE: the check of existing rows does not block writers.
  await knex.raw(`ALTER TABLE consent_records ADD CONSTRAINT ${NAME} FOREIGN KEY (project_id) REFERENCES projects(id) ON DELETE CASCADE NOT VALID`);
  await knex.raw(`ALTER TABLE consent_records VALIDATE CONSTRAINT ${NAME}`);
}
