import { z } from 'zod';
import { route } from '../route';
import { ApiError, conflict } from '../errors';
import { Credentials, Login, LogoutOut, UserOut } from '../schemas/auth';
import { bumpSessionVersion, checkCredentials, createUser } from '../../db/users';
import { clearSession, endSession, startSession } from '../sessionCookie';
import { reserveSignIn, signInSucceeded, throttleClient } from '../middleware/authThrottle';
import { TwoFactorPending } from '../schemas/twoFactor';
import { signIn } from '../signIn';

const tooMany = { description: 'RATE_LIMIT_EXCEEDED: too many attempts from this address, or this account is locked; Retry-After says for how long' };

export default [
  route({
    method: 'post',
    path: '/auth/signup',
    auth: 'none',
    tag: 'auth',
    summary: 'Create a dashboard user and sign in',
    body: Credentials,
    responses: {
      201: { description: 'created', schema: UserOut },
      403: { description: 'signups disabled' },
      409: { description: 'email taken' },
      429: tooMany,
    },
    async handler(ctx, { body }) {
      if (ctx.deps.config.disableSignups) throw new ApiError(403, 'FORBIDDEN', 'Signups are disabled on this server');
      await throttleClient(ctx);
      const user = await createUser(ctx.deps.knex, body.email, body.password);
      if (!user) throw conflict('An account with this email already exists');
      await startSession(ctx, user);
      ctx.status = 201;
      return { id: user.id, email: user.email };
    },
  }),
  route({
    method: 'post',
    path: '/auth/login',
    auth: 'none',
    tag: 'auth',
    summary:
      'Sign in with email and password; sets the session cookie. An account with 2FA gets no session yet: the answer is { twoFactorRequired: true } with a 5-minute ticket cookie for POST /auth/login/two-factor',
    body: Login,
    responses: {
      200: { description: 'signed in, or (2FA) the password step done', schema: z.union([UserOut, TwoFactorPending]) },
      401: { description: 'wrong email or password' },
      429: tooMany,
    },
    async handler(ctx, { body }) {
      await throttleClient(ctx);
      await reserveSignIn(ctx, body.email);
      const user = await checkCredentials(ctx.deps.knex, body.email, body.password);
      if (!user) throw new ApiError(401, 'UNAUTHORIZED', 'Invalid email or password');
      await signInSucceeded(ctx, body.email);
      if ((await signIn(ctx, user)) === 'second-factor') return { twoFactorRequired: true as const };
      return { id: user.id, email: user.email };
    },
  }),
  route({
    method: 'get',
    path: '/auth/logout',
    auth: 'none',
    tag: 'auth',
    summary: 'Clear the session cookie (kept for the spec; POST /auth/logout is the one to use)',
    responses: { 200: { description: 'signed out', schema: LogoutOut } },
    async handler(ctx) {
      await endSession(ctx);
      return { success: true };
    },
  }),
  route({
    method: 'post',
    path: '/auth/logout',
    auth: 'none',
    // A page from another site cannot sign the user out: Origin is checked; a same-origin form may post here.
    crossSiteForms: true,
    tag: 'auth',
    summary: 'Sign this browser out: its session ends on the server and the cookie is cleared',
    responses: { 204: { description: 'signed out' }, 403: { description: 'a request from another origin' } },
    async handler(ctx) {
      await endSession(ctx);
      ctx.status = 204;
    },
  }),
  route({
    method: 'post',
    path: '/auth/logout-all',
    auth: 'session',
    tag: 'auth',
    summary: 'End every session of the signed-in user, on every device, and clear this cookie',
    responses: { 204: { description: 'every session ended' }, 401: { description: 'not signed in' }, 403: { description: 'a request from another origin' } },
    async handler(ctx, { user }) {
      await bumpSessionVersion(ctx.deps.knex, user.id);
      clearSession(ctx);
      ctx.status = 204;
    },
  }),
];
