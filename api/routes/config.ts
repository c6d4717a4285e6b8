import { route } from '../route';

export default [
  route({
    method: 'get',
    path: '/config',
    auth: 'none',
    tag: 'system',
    summary: 'Feature flags for the dashboard',
    async handler(ctx) {
      const c = ctx.deps.config;
      ctx.body = {
        signupsEnabled: !c.disableSignups,
        oauth: { providers: c.oauthProviders.map((p) => p.id) },
        billing: { enabled: c.billing.enabled },
        storage: { objectStorage: false },
        smtp: { enabled: false },
        email: { transport: c.email.transport },
        temporal: { namespace: c.temporal.namespace },
      };
    },
  }),
];
