import type { Knex } from 'knex';
import { uuid } from '../lib/ids';
import { unusablePasswordHash } from '../lib/password';
import { normalizeEmail, type UserRow } from './users';

/** An account at an OpenID provider, as its validated ID token names it. */
export interface ProviderIdentity {
  issuer: string;
  subject: string;
  /** An address the provider says it verified (services/sso.ts checks that before this is called). */
  email: string;
}

export type IdentitySignIn = { user: UserRow; created: boolean } | { refused: 'signups_disabled' };

/**
 * The user an SSO sign-in is for (docs/security.md "Single sign-on", account linking):
 * 1. the user already linked to this issuer and subject, whatever the provider's address is now;
 * 2. else the account with the provider's address, which gets linked. Its address is now proven. If it
 *    was never verified, the sign-in is a claim, as a password reset is (db/accounts.ts): whoever signed
 *    up with the address without owning it loses the password they chose and every session they kept;
 * 3. else a new account (unless signups are off), verified, with no usable password.
 */
export async function signInWithIdentity(knex: Knex, identity: ProviderIdentity, opts: { signupsAllowed: boolean }): Promise<IdentitySignIn> {
  const email = normalizeEmail(identity.email);
  return knex.transaction(async (trx) => {
    const linked = await trx<UserRow>('users')
      .join('user_identities', 'user_identities.user_id', 'users.id')
      .where({ 'user_identities.issuer': identity.issuer, 'user_identities.subject': identity.subject })
      .first('users.*');
    if (linked) {
      await trx('user_identities').where({ issuer: identity.issuer, subject: identity.subject }).update({ email, last_sign_in_at: trx.fn.now() });
      const user = linked.email === email && !linked.email_verified ? await claimAddress(trx, linked) : linked;
      return { user, created: false };
    }

    let user = await trx<UserRow>('users').where({ email }).forUpdate().first();
    let created = false;
    if (user) {
      if (!user.email_verified) user = await claimAddress(trx, user);
    } else {
      if (!opts.signupsAllowed) return { refused: 'signups_disabled' as const };
      // A concurrent sign-in (or signup) for the address may win the insert: then that account is the one.
      const [inserted] = await trx<UserRow>('users')
        .insert({ id: uuid(), email, password_hash: unusablePasswordHash(), email_verified: true })
        .onConflict('email')
        .ignore()
        .returning('*');
      created = !!inserted;
      user = inserted ?? (await trx<UserRow>('users').where({ email }).forUpdate().first())!;
      if (!inserted && !user.email_verified) user = await claimAddress(trx, user);
    }
    await trx('user_identities')
      .insert({ issuer: identity.issuer, subject: identity.subject, user_id: user.id, email })
      .onConflict(['issuer', 'subject'])
      .merge({ email, last_sign_in_at: trx.fn.now() });
    return { user, created };
  });
}

/** The provider proved the address: verified, and (when it was not before) no earlier password or session survives. */
async function claimAddress(trx: Knex.Transaction, user: UserRow): Promise<UserRow> {
  const [claimed] = await trx<UserRow>('users')
    .where({ id: user.id })
    .update({
      email_verified: true,
      password_hash: unusablePasswordHash(),
      session_version: trx.raw('session_version + 1') as any,
      updated_at: trx.fn.now() as any,
    })
    .returning('*');
  return claimed;
}

/** The links of a user, oldest first (tests, and a future account page). */
export async function identitiesOf(knex: Knex, userId: string): Promise<Array<{ issuer: string; subject: string; email: string }>> {
  return knex('user_identities').where({ user_id: userId }).orderBy('created_at').select('issuer', 'subject', 'email');
}
