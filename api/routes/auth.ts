import { route } from '../route';
import type { AppContext } from '../context';
import { ApiError, conflict } from '../errors';
import { Credentials, Login, UserOut } from '../schemas/auth';
import { checkCredentials, createUser, UserRow } from '../../db/users';
import { signJwt } from '../../lib/jwt';
import { SESSION_COOKIE } from '../middleware/auth';

const SESSION_TTL_SECONDS = 7 * 24 * 3600;

function setSession(ctx: AppContext, user: UserRow) {
  ctx.cookies.set(SESSION_COOKIE, signJwt({ sub: user.id }, ctx.deps.config.jwtSecret, SESSION_TTL_SECONDS), {
    httpOnly: true,
    sameSite: 'lax',
    // From the request (X-Forwarded-Proto behind a proxy): a Secure cookie on a plain-http request makes `cookies` throw.
    secure: ctx.secure,
    maxAge: SESSION_TTL_SECONDS * 1000,
    overwrite: true,
  });
}

export default [
  route({
    method: 'post',
    path: '/auth/signup',
    auth: 'none',
    tag: 'auth',
    summary: 'Create a dashboard user and sign in',
    body: Credentials,
    responses: { 201: { description: 'created', schema: UserOut }, 403: { description: 'signups disabled' }, 409: { description: 'email taken' } },
    async handler(ctx, { body }) {
      if (ctx.deps.config.disableSignups) throw new ApiError(403, 'FORBIDDEN', 'Signups are disabled on this server');
      const user = await createUser(ctx.deps.knex, body.email, body.password);
      if (!user) throw conflict('An account with this email already exists');
      setSession(ctx, user);
      ctx.status = 201;
      ctx.body = { id: user.id, email: user.email };
    },
  }),
  route({
    method: 'post',
    path: '/auth/login',
    auth: 'none',
    tag: 'auth',
    summary: 'Sign in with email and password; sets the session cookie',
    body: Login,
    responses: { 200: { description: 'signed in', schema: UserOut }, 401: { description: 'wrong email or password' } },
    async handler(ctx, { body }) {
      const user = await checkCredentials(ctx.deps.knex, body.email, body.password);
      if (!user) throw new ApiError(401, 'UNAUTHORIZED', 'Invalid email or password');
      setSession(ctx, user);
      ctx.body = { id: user.id, email: user.email };
    },
  }),
  route({
    method: 'get',
    path: '/auth/logout',
    auth: 'none',
    tag: 'auth',
    summary: 'Clear the session cookie',
    async handler(ctx) {
      ctx.cookies.set(SESSION_COOKIE, null, { httpOnly: true, sameSite: 'lax' });
      ctx.body = { success: true };
    },
  }),
];
