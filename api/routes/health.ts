import { z } from 'zod';
import { route } from '../route';

const Part = z.enum(['ok', 'error']);
const HealthOut = z.object({ status: Part, database: Part, temporal: Part });

export default [
  route({
    method: 'get',
    path: '/health',
    auth: 'none',
    tag: 'system',
    summary: 'Liveness of the API and its two dependencies',
    responses: { 200: { description: 'all parts ok', schema: HealthOut }, 503: { description: 'a part is failing', schema: HealthOut } },
    async handler(ctx) {
      const [database, temporal] = await Promise.all([
        ctx.deps.knex.raw('SELECT 1').then(
          () => 'ok' as const,
          () => 'error' as const,
        ),
        ctx.deps.temporal.health().then((ok) => (ok ? ('ok' as const) : ('error' as const))),
      ]);
      const ok = database === 'ok' && temporal === 'ok';
      ctx.status = ok ? 200 : 503;
      return { status: ok ? ('ok' as const) : ('error' as const), database, temporal };
    },
  }),
];
