import type { Knex } from 'knex';
import * as init from './001_init';
import * as transactional from './002_transactional';
import * as eventRouting from './003_event_routing';

/**
 * Migrations are listed here rather than discovered on disk, so the same list works under tsx,
 * jest and a compiled build alike. Append new ones; never reorder or edit a shipped one.
 */
const migrations: Array<[string, { up(k: Knex): Promise<void>; down(k: Knex): Promise<void> }]> = [
  ['001_init', init],
  ['002_transactional', transactional],
  ['003_event_routing', eventRouting],
];

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => migrations.map(([name]) => name),
  getMigrationName: (name) => name,
  getMigration: async (name) => {
    const found = migrations.find(([n]) => n === name);
    if (!found) throw new Error(`unknown migration ${name}`);
    return found[1];
  },
};
