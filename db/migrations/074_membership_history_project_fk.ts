import type { Knex } from 'knex';

/**
 * `segment_membership_changes.project_id` loses its foreign key: a compute writes a history row per
 * member that entered or left, and each row's check of `projects` was one of the seven foreign key
 * checks a member cost (EXPLAIN of a 50,000-contact chunk: 1.6 s of 49 s at load 20,
 * docs/benchmarks.md "Segment refresh"). It protected nothing the contact's key does not: every row
 * names a contact (NOT NULL, ON DELETE CASCADE), the contact belongs to the project, and deleting a
 * project deletes its contacts, so the rows still go with their project (test/integration/segmentCompute.test.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE segment_membership_changes DROP CONSTRAINT IF EXISTS segment_membership_changes_project_id_fkey');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    'ALTER TABLE segment_membership_changes ADD CONSTRAINT segment_membership_changes_project_id_fkey FOREIGN KEY (project_id) REFERENCES projects(id) ON DELETE CASCADE',
  );
}
