import { route } from '../route';
import { notFound } from '../errors';
import type { AppContext } from '../context';
import { beginSignIn, finishSignIn, type SsoRefusal } from '../../services/sso';
import { signInWithIdentity } from '../../db/userIdentities';
import { signIn as signInAs } from '../signIn';
import { keepAttempt, takeAttempt } from '../ssoAttemptCookie';

/** Single sign-on with OpenID Connect (docs/security.md "Single sign-on"); both routes answer 404 while it is off. */

const redirectUri = (ctx: AppContext) => `${ctx.deps.config.appUrl}/auth/sso/callback`;
/** Every way out of a failed callback: the login screen, which has a sentence for each code. */
const toLogin = (ctx: AppContext, code: SsoRefusal) => ctx.redirect(`/app/login?error=${code}`);

export default [
  route({
    method: 'get',
    path: '/auth/sso/start',
    auth: 'none',
    tag: 'auth',
    summary: 'Start signing in with the OpenID provider (OIDC_ISSUER): 302 to it, with a fresh state, nonce and PKCE challenge',
    responses: {
      302: { description: "Location: the provider's authorization endpoint; the attempt is kept in a signed httpOnly cookie for 10 minutes" },
      404: { description: 'single sign-on is not configured' },
    },
    async handler(ctx) {
      const sso = ctx.deps.config.sso;
      if (!sso) throw notFound('Single sign-on');
      let started: Awaited<ReturnType<typeof beginSignIn>>;
      try {
        started = await beginSignIn(sso, redirectUri(ctx));
      } catch (err) {
        ctx.deps.log.error({ err, requestId: ctx.state.requestId }, 'SSO: the OpenID provider could not be reached or its discovery document was refused');
        return toLogin(ctx, 'failed');
      }
      keepAttempt(ctx, started.attempt);
      ctx.set('Cache-Control', 'no-store');
      ctx.redirect(started.url);
    },
  }),
  route({
    method: 'get',
    path: '/auth/sso/callback',
    auth: 'none',
    tag: 'auth',
    summary:
      "The OpenID provider's redirect: validates the answer and the provider's verified email, links or creates the account, sets the session cookie, and sends the browser to the dashboard",
    responses: {
      302: {
        description:
          'Location: /app/ signed in; or /app/login?error=<code> with code state, denied, email_missing, email_unverified, domain, signups_disabled or failed',
      },
      404: { description: 'single sign-on is not configured' },
    },
    async handler(ctx) {
      const sso = ctx.deps.config.sso;
      if (!sso) throw notFound('Single sign-on');
      const attempt = takeAttempt(ctx);
      try {
        const outcome = await finishSignIn(sso, new URL(`${redirectUri(ctx)}?${ctx.querystring}`), attempt);
        if ('refused' in outcome) {
          if (outcome.refused === 'failed') ctx.deps.log.warn({ err: outcome.cause, requestId: ctx.state.requestId }, 'SSO: the provider answer was refused');
          return toLogin(ctx, outcome.refused);
        }
        const signIn = await signInWithIdentity(ctx.deps.knex, outcome.identity, { signupsAllowed: !ctx.deps.config.disableSignups });
        if ('refused' in signIn) return toLogin(ctx, signIn.refused);
        const done = await signInAs(ctx, signIn.user);
        ctx.set('Cache-Control', 'no-store');
        // The provider proved the address, not this account's second factor: with 2FA on, the login screen asks for the code.
        ctx.redirect(done === 'second-factor' ? '/app/login?step=two-factor' : '/app/');
      } catch (err) {
        // No callback input ends in a 500: whatever failed, the person is back on the login screen with a sentence.
        ctx.deps.log.error({ err, requestId: ctx.state.requestId }, 'SSO: sign-in failed');
        toLogin(ctx, 'failed');
      }
    },
  }),
];
