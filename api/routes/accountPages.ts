import { z } from 'zod';
import { route } from '../route';
import type { AppContext } from '../context';
import { escapeHtml, PAGE_CSS, PAGE_STYLESHEET_PATH, renderPage } from '../pages';
import { Credentials } from '../schemas/auth';
import { mailToken } from '../../services/accountEmails';
import { sessionUser } from '../middleware/auth';
import { formCrossSiteRefusal } from '../middleware/crossSite';
import { resetPasswordWithToken, verifyEmailWithToken } from '../../db/accounts';
import { acceptInvite, findInviteByToken, InviteOffer } from '../../db/members';
import { createUser, normalizeEmail, UserRow } from '../../db/users';
import { countClientAttempt } from '../middleware/authThrottle';

/**
 * The pages the links of the service's own emails opened before those links moved to the
 * dashboard's screens (/app/…, services/accountEmails.ts and the invite in routes/projects.ts): verify
 * an address, choose a new password, accept an invite. They stay for links already mailed. Every
 * change happens on a form POST, never on the GET, because mail scanners open links.
 */

const TOKEN = /^[0-9A-Za-z]{1,100}$/;
// Loose on purpose: a bad value gets a page that says so, not a JSON error.
const text = z.string().max(2000).optional();
const TokenQuery = z.object({ token: text });
const TokenForm = z.object({ token: text });
const ResetForm = z.object({ token: text, password: text });
const SignupQuery = z.object({ email: text, invite: text });
const SignupForm = z.object({ email: text, password: text, invite: text });

const common = { auth: 'none', tag: 'pages', noRateLimit: true } as const;

const tokenOf = (raw: string | undefined) => (raw && TOKEN.test(raw.trim()) ? raw.trim() : null);
const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
const error = (message: string) => `<p class="error" role="alert">${escapeHtml(message)}</p>`;

function badLink(ctx: AppContext, title: string, status = 400) {
  renderPage(ctx, title, `${error('This link is invalid, was already used or has expired.')}\n<p>Ask for a new email and use the newest link.</p>`, status);
}

/** The sign-in throttle's per-address count (middleware/authThrottle.ts), answered as a page. */
async function refusedAsTooMany(ctx: AppContext, title: string): Promise<boolean> {
  const v = await countClientAttempt(ctx);
  if (v.allowed) return false;
  renderPage(ctx, title, error(`Too many attempts from your address. Try again in ${v.retryAfterSeconds} seconds.`), 429);
  ctx.set('Retry-After', String(v.retryAfterSeconds));
  return true;
}

function resetForm(token: string, problem?: string) {
  return `${problem ? error(problem) : ''}
<form method="post" action="/reset-password">${hidden('token', token)}
<label>New password <input type="password" name="password" minlength="8" maxlength="1024" autocomplete="new-password" required></label>
<button type="submit">Set the new password</button>
</form>`;
}

const inviteLink = (token: string) => `/invite?token=${encodeURIComponent(token)}`;

function signupForm(email: string, invite: string | null, problem?: string) {
  return `<p>You were invited to a project on this server. Create your account with the invited address; we then email it a link to verify it. Once it is verified and you are signed in, open the invitation link again and accept.</p>
${problem ? error(problem) : ''}
<form method="post" action="/signup">${invite ? hidden('invite', invite) : ''}
<label>Email <input type="email" name="email" value="${escapeHtml(email)}" autocomplete="email" required></label>
<label>Password <input type="password" name="password" minlength="8" maxlength="1024" autocomplete="new-password" required></label>
<button type="submit">Create account</button>
</form>`;
}

const INVITE_TITLE = 'Join your team';

function offerText(offer: InviteOffer) {
  const who = offer.inviterEmail ? `${escapeHtml(offer.inviterEmail)} invited you` : 'You are invited';
  return `<p>${who} to the project <strong>${escapeHtml(offer.projectName)}</strong> as <strong>${escapeHtml(offer.role)}</strong>.</p>
<p>The invitation is for ${escapeHtml(offer.email)} and expires ${escapeHtml(offer.expiresAt.toISOString().slice(0, 16).replace('T', ' '))} UTC.</p>`;
}

/**
 * The invite page for whoever is signed in: the Accept button only for the account of the invited
 * address (accepting with the token verifies it), and for anyone else what to do first. `status` overrides the answer's status
 * (the POST that could not accept).
 */
function invitePage(ctx: AppContext, token: string, offer: InviteOffer, user: UserRow | undefined, status?: number) {
  const offered = offerText(offer);
  const link = `<a href="${escapeHtml(inviteLink(token))}">${escapeHtml(ctx.deps.config.appUrl + inviteLink(token))}</a>`;
  if (!user) {
    const signup = `/signup?email=${encodeURIComponent(offer.email)}&invite=${encodeURIComponent(token)}`;
    const body = `${offered}
<p>To accept, sign in with ${escapeHtml(offer.email)} first, or <a href="${escapeHtml(signup)}">create an account</a> with it. Then open this link again: ${link}</p>`;
    return renderPage(ctx, INVITE_TITLE, body, status ?? 200);
  }
  if (normalizeEmail(user.email) !== offer.email) {
    return renderPage(
      ctx,
      INVITE_TITLE,
      `${offered}\n${error(`You are signed in as ${user.email}. Sign in with ${offer.email} to accept this invitation.`)}`,
      status ?? 200,
    );
  }
  renderPage(
    ctx,
    INVITE_TITLE,
    `${offered}
<form method="post" action="/invite">${hidden('token', token)}<button type="submit">Accept invite</button></form>`,
    status ?? 200,
  );
}

export default [
  route({
    ...common,
    method: 'get',
    path: PAGE_STYLESHEET_PATH,
    responses: { 200: { description: 'the stylesheet of these pages', contentType: 'text/css' } },
    summary: 'The stylesheet of the server-rendered pages',
    handler(ctx) {
      ctx.type = 'text/css';
      ctx.set('Cache-Control', 'public, max-age=3600');
      ctx.body = PAGE_CSS;
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/verify-email',
    responses: { 200: { description: 'an HTML page', contentType: 'text/html' } },
    summary: 'Page of the verification link: a button that verifies (nothing changes on GET)',
    query: TokenQuery,
    handler(ctx, { query }) {
      const token = tokenOf(query.token);
      if (!token) return badLink(ctx, 'Verify your email address');
      renderPage(
        ctx,
        'Verify your email address',
        `<p>Press the button to confirm that this address is yours.</p>
<form method="post" action="/verify-email">${hidden('token', token)}<button type="submit">Verify my email address</button></form>`,
      );
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/verify-email',
    responses: { 200: { description: 'an HTML page', contentType: 'text/html' } },
    summary: 'Verify an address from the verification page (form field token)',
    body: TokenForm,
    async handler(ctx, { body }) {
      const token = tokenOf(body.token);
      const user = token ? await verifyEmailWithToken(ctx.deps.knex, token) : null;
      if (!user) return badLink(ctx, 'Verify your email address');
      renderPage(
        ctx,
        'Email address verified',
        `<p>${escapeHtml(user.email)} is verified. Invited to a project? Sign in, then open the invitation link again to accept it.</p>
<p><a href="${escapeHtml(ctx.deps.config.appUrl)}/">Continue</a></p>`,
      );
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/reset-password',
    responses: { 200: { description: 'an HTML page', contentType: 'text/html' } },
    summary: 'Page of the password reset link: a form for the new password',
    query: TokenQuery,
    handler(ctx, { query }) {
      const token = tokenOf(query.token);
      if (!token) return badLink(ctx, 'Choose a new password');
      renderPage(ctx, 'Choose a new password', resetForm(token));
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/reset-password',
    responses: { 200: { description: 'an HTML page', contentType: 'text/html' } },
    summary: 'Set the new password from the reset page (form fields token, password)',
    body: ResetForm,
    async handler(ctx, { body }) {
      if (await refusedAsTooMany(ctx, 'Choose a new password')) return;
      const token = tokenOf(body.token);
      if (!token) return badLink(ctx, 'Choose a new password');
      const password = Credentials.shape.password.safeParse(body.password ?? '');
      if (!password.success) return renderPage(ctx, 'Choose a new password', resetForm(token, password.error.issues[0].message), 400);
      const user = await resetPasswordWithToken(ctx.deps.knex, token, password.data);
      if (!user) return badLink(ctx, 'Choose a new password');
      renderPage(
        ctx,
        'Password changed',
        `<p>The password of ${escapeHtml(user.email)} is changed, and every device signed in to it is signed out. Sign in with the new one.</p>`,
      );
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/signup',
    responses: { 200: { description: 'an HTML page', contentType: 'text/html' } },
    summary: 'Page of the invitation link: create the invited account',
    query: SignupQuery,
    handler(ctx, { query }) {
      renderPage(ctx, 'Join your team', signupForm(query.email ?? '', tokenOf(query.invite)));
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/signup',
    responses: { 200: { description: 'an HTML page', contentType: 'text/html' } },
    summary: 'Create the invited account from the invitation page (form fields email, password) and email it a verification link',
    body: SignupForm,
    async handler(ctx, { body }) {
      const email = body.email ?? '';
      const invite = tokenOf(body.invite);
      if (ctx.deps.config.disableSignups) return renderPage(ctx, 'Join your team', error('Signups are disabled on this server.'), 403);
      if (await refusedAsTooMany(ctx, 'Join your team')) return;
      const input = Credentials.safeParse({ email, password: body.password ?? '' });
      if (!input.success) return renderPage(ctx, 'Join your team', signupForm(email, invite, input.error.issues[0].message), 400);
      const user = await createUser(ctx.deps.knex, input.data.email, input.data.password);
      if (!user) {
        const message =
          'An account with this address exists already. Sign in (or reset its password), verify the address, then open the invitation link again.';
        return renderPage(ctx, 'Join your team', error(message), 409);
      }
      await mailToken(ctx.deps, user, 'VERIFY_EMAIL');
      const back = invite ? ` <a href="${escapeHtml(inviteLink(invite))}">Back to the invitation</a>` : '';
      renderPage(
        ctx,
        'Check your inbox',
        `<p>We sent a link to ${escapeHtml(user.email)}. Open it and press the button there to verify the address; then sign in and open the invitation link again to accept it.${back}</p>`,
        201,
      );
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/invite',
    responses: { 200: { description: 'an HTML page', contentType: 'text/html' } },
    summary:
      'Page of the invitation link: the project and role offered, and an Accept button for the signed-in owner of the invited address (nothing changes on GET)',
    query: TokenQuery,
    async handler(ctx, { query }) {
      const token = tokenOf(query.token);
      const offer = token ? await findInviteByToken(ctx.deps.knex, token) : null;
      if (!token || !offer) return badLink(ctx, INVITE_TITLE, 404);
      invitePage(ctx, token, offer, await sessionUser(ctx));
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/invite',
    responses: { 200: { description: 'an HTML page', contentType: 'text/html' } },
    summary: "Accept the invitation from its page (form field token): the session cookie's account must be the invited address's (the token verifies it)",
    body: TokenForm,
    async handler(ctx, { body }) {
      // A cookie-authenticated change from a form: another site's page must not be able to press the button for the visitor.
      const refused = formCrossSiteRefusal(ctx);
      if (refused) return renderPage(ctx, INVITE_TITLE, error(refused), 403);
      const token = tokenOf(body.token);
      const offer = token ? await findInviteByToken(ctx.deps.knex, token) : null;
      if (!token || !offer) return badLink(ctx, INVITE_TITLE, 404);
      const user = await sessionUser(ctx);
      if (!user) return invitePage(ctx, token, offer, undefined, 401);
      const result = await acceptInvite(ctx.deps.knex, token, user);
      if (result === 'NOT_FOUND') return badLink(ctx, INVITE_TITLE, 404);
      if (result !== 'WRONG_ACCOUNT') {
        return renderPage(
          ctx,
          'Invitation accepted',
          `<p>You joined <strong>${escapeHtml(offer.projectName)}</strong> as <strong>${escapeHtml(result.role)}</strong>.</p>
<p><a href="${escapeHtml(ctx.deps.config.appUrl)}/">Continue</a></p>`,
        );
      }
      invitePage(ctx, token, offer, user, 403);
    },
  }),
];
