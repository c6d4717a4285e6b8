import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => {
    // Set by the routeEvent workflow once the event's triggers and waiters were handled.
    t.timestamp('routed_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => t.dropColumn('routed_at'));
}
