import { route } from '../route';
import { oauthProviders } from '../../lib/oauth';
import { stripeSettings } from '../../lib/stripe';

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
        oauth: { providers: oauthProviders().map((p) => p.id) },
        billing: { enabled: stripeSettings().enabled },
        storage: { objectStorage: false },
        smtp: { enabled: false },
        email: { transport: c.email.transport },
        temporal: { namespace: c.temporal.namespace },
      };
    },
  }),
];
