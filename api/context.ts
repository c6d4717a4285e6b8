import type Koa from 'koa';
import type { Knex } from 'knex';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import type { TemporalGateway } from '../services/temporal';
import type { ProjectRow } from '../db/projects';
import type { UserRow } from '../db/users';
import type { StepRegistry } from '../temporal/steps';
import type { Runtime } from '../services/runtime';
import type { ReplicaSet } from '../db/replicas';

/** Everything a request handler may reach; built once per process (or per test). */
export interface Deps {
  config: Config;
  knex: Knex;
  /** Streaming replicas for heavy reads (DATABASE_REPLICA_URL); absent: every read uses `knex`. Services pick through services/reads.ts. */
  reader?: ReplicaSet;
  temporal: TemporalGateway;
  log: Logger;
  /** Workflow step types; the registry of temporal/steps when absent (tests inject their own). */
  steps?: StepRegistry;
  /** The collaborators built once per process (services/runtime.ts). */
  runtime: Runtime;
}

export interface AppState {
  requestId: string;
  project?: ProjectRow;
  user?: UserRow;
  /** The signed-in user's session row (the cookie's `sid`), set with `user` by the session check. */
  sessionId?: string;
  /** The cookie caller's role on `project` (secret-key routes reached by cookie + X-Project-Id). */
  role?: import('../db/projects').Role;
  /** The named API key of the request (docs/api.md "Scoped API keys"), when one authenticated it. */
  apiKey?: import('../db/apiKeys').KeyPrincipal;
  /** What the request's key may do: a named key's own scopes; `full` for the secret key and the cookie. */
  scopes?: readonly import('../db/apiKeys').ApiKeyScope[];
  /** The route serving the request: what an `access.denied` entry names. */
  route?: { method: string; path: string; audit?: string | readonly string[]; replay?: boolean };
  /** Set for routes declared with `rawJsonBody` (signed webhooks). */
  rawBody?: Buffer;
}

export type AppContext = Koa.ParameterizedContext<AppState, { deps: Deps; params: Record<string, string> }>;
