import type { Knex } from 'knex';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import type { TemporalGateway } from '../services/temporal';
import type { StepRegistry } from '../temporal/steps/types';
import type { Runtime } from '../services/runtime';

/** What every activity may use; the worker builds it once. */
export interface ActivityDeps {
  config: Config;
  knex: Knex;
  log: Logger;
  /** For activities that start or signal other workflows (always under deterministic ids). */
  temporal: TemporalGateway;
  /** The step registry execution starts parse their graphs with (tests inject their own). */
  steps?: StepRegistry;
  /** The collaborators built once per process (services/runtime.ts): the transport, event hand-off, verifier. */
  runtime: Runtime;
}
