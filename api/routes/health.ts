import { route } from '../route';

export default [
  route({
    method: 'get',
    path: '/health',
    auth: 'none',
    tag: 'system',
    summary: 'Liveness of the API and its two dependencies',
    responses: { 200: { description: 'all parts ok' }, 503: { description: 'a part is failing' } },
    async handler(ctx) {
      const [database, temporal] = await Promise.all([
        ctx.deps.knex.raw('SELECT 1').then(
          () => 'ok',
          () => 'error',
        ),
        ctx.deps.temporal.health().then((ok) => (ok ? 'ok' : 'error')),
      ]);
      const ok = database === 'ok' && temporal === 'ok';
      ctx.status = ok ? 200 : 503;
      ctx.body = { status: ok ? 'ok' : 'error', database, temporal };
    },
  }),
];
