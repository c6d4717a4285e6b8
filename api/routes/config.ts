import { z } from 'zod';
import { route } from '../route';
import { senderCheckWaived } from '../../lib/config';

const ConfigOut = z.object({
  signupsEnabled: z.boolean(),
  oauth: z.object({ providers: z.array(z.string()) }),
  /** Single sign-on with OpenID Connect: the login screen shows "Sign in with SSO" when enabled (GET /auth/sso/start). */
  sso: z.object({ enabled: z.boolean(), name: z.string().nullable().describe("the provider's name (OIDC_NAME), shown under the button") }),
  billing: z.object({ enabled: z.boolean() }),
  storage: z.object({ objectStorage: z.boolean() }),
  smtp: z.object({ enabled: z.boolean() }),
  email: z.object({
    transport: z.string(),
    /** `npm start`'s development inbox receives every email: the dashboard shows a banner. */
    localInbox: z.boolean(),
    /** The inbox's web page, when localInbox. */
    inboxUrl: z.string().nullable(),
    /** Whether sends skip the sender-domain check (lib/config.ts senderCheckWaived). */
    senderCheckWaived: z.boolean(),
  }),
  temporal: z.object({ namespace: z.string(), uiUrl: z.string().describe('the Temporal Web UI (TEMPORAL_UI_URL), for links to executions') }),
});

export default [
  route({
    method: 'get',
    path: '/config',
    auth: 'none',
    tag: 'system',
    summary: 'Feature flags for the dashboard',
    responses: { 200: { description: 'flags', schema: ConfigOut } },
    async handler(ctx) {
      const c = ctx.deps.config;
      const localInbox = c.email.localInbox === true;
      return {
        signupsEnabled: !c.disableSignups,
        oauth: { providers: c.oauthProviders.map((p) => p.id) },
        sso: { enabled: !!c.sso, name: c.sso?.name ?? null },
        billing: { enabled: c.billing.enabled },
        storage: { objectStorage: false },
        smtp: { enabled: false },
        email: {
          transport: c.email.transport,
          localInbox,
          inboxUrl: localInbox && c.devInbox ? `http://127.0.0.1:${c.devInbox.webPort}` : null,
          senderCheckWaived: senderCheckWaived(c),
        },
        temporal: { namespace: c.temporal.namespace, uiUrl: c.temporal.uiUrl },
      };
    },
  }),
];
