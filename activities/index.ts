import type { Knex } from 'knex';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import { domainActivities } from './domains';
import { eventActivities } from './events';
import { emailActivities } from './email';

/** What every activity may use; the worker builds it once. */
export interface ActivityDeps {
  config: Config;
  knex: Knex;
  log: Logger;
}

export function createActivities(deps: ActivityDeps) {
  return {
    ...domainActivities(deps),
    ...eventActivities(deps),
    ...emailActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
