import type { AppContext } from './context';
import type { UserRow } from '../db/users';
import { hasTwoFactor } from '../db/twoFactor';
import { startSession } from './sessionCookie';
import { issueTicket } from './twoFactorTicket';

/**
 * Every way in that proves who the person is — password, reset link, single sign-on — ends here, so
 * none of them skips a second factor: an account with 2FA gets only the 5-minute ticket, and
 * POST /auth/login/two-factor makes the session (docs/security.md "Two-factor authentication").
 */
export async function signIn(ctx: AppContext, user: UserRow): Promise<'signed-in' | 'second-factor'> {
  if (await hasTwoFactor(ctx.deps.knex, user.id)) {
    issueTicket(ctx, user);
    return 'second-factor';
  }
  await startSession(ctx, user);
  return 'signed-in';
}
