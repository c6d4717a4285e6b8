import type { Knex } from 'knex';

/** Revocable sessions and the sign-in throttle (docs/api.md "Sessions" and "Sign-in limits"). */
export async function up(knex: Knex): Promise<void> {
  // Every session cookie carries the version current when it was issued; bumping it (password
  // reset, log out everywhere) makes every earlier cookie of the user fail at once on every replica.
  await knex.schema.alterTable('users', (t) => {
    t.integer('session_version').notNullable().defaultTo(0);
  });
  // One row per throttled subject, shared by every API replica:
  // - scope 'ip' (key: the client address): its attempts as a GCRA, `tat` the theoretical arrival
  //   time of the next one;
  // - scope 'account' (key: the normalised email): failed sign-ins since the count was last
  //   forgotten (count, last_at), and the lock they earned (locked_until).
  await knex.schema.createTable('auth_throttle', (t) => {
    t.text('scope').notNullable();
    t.text('key').notNullable();
    t.timestamp('tat', { useTz: true });
    t.integer('count').notNullable().defaultTo(0);
    t.timestamp('last_at', { useTz: true });
    t.timestamp('locked_until', { useTz: true });
    t.primary(['scope', 'key']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('auth_throttle');
  await knex.schema.alterTable('users', (t) => t.dropColumn('session_version'));
}
