import Koa from 'koa';
import type Router from '@koa/router';
import type { Deps } from './context';
import { requestId } from './middleware/requestId';
import { errorEnvelope } from './middleware/errors';
import { httpMetrics, metricsEndpoint } from './middleware/metrics';
import { observePool } from '../lib/metrics';
import { buildRouter } from './router';
import { mcpEndpoint } from '../mcp/http';
import { allRoutes } from './routes';
import { dashboard } from './dashboard';

export interface BuiltApp {
  app: Koa<any, any>;
  router: Router<any, any>;
}

/** Builds the Koa app without listening, so tests mount it directly. */
export function buildApp(deps: Deps): BuiltApp {
  const app = new Koa<any, any>();
  app.proxy = true;
  app.context.deps = deps;
  // Koa's own error printer would duplicate our 500 logs.
  app.silent = true;
  const router = buildRouter(allRoutes);
  observePool('api', deps.knex);
  for (const [i, pool] of (deps.reader?.pools ?? []).entries()) observePool(`api_replica${i}`, pool);
  app.use(httpMetrics);
  app.use(requestId);
  app.use(errorEnvelope);
  app.use(metricsEndpoint);
  app.use(mcpEndpoint());
  app.use(dashboard());
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: true }));
  return { app, router };
}
