import type { Knex } from 'knex';
import { randomBase62, uuid } from '../lib/ids';
import { sha256Hex } from '../lib/hash';

export type TokenPurpose = 'VERIFY_EMAIL' | 'RESET_PASSWORD' | 'CHANGE_EMAIL';

/**
 * A verification link stays usable for a day; a password reset link, which grants the account, for
 * an hour; an email change link (sent to the new address, after the password was given) for a day.
 */
export const TOKEN_TTL_SECONDS: Record<TokenPurpose, number> = {
  VERIFY_EMAIL: 24 * 3600,
  RESET_PASSWORD: 3600,
  CHANGE_EMAIL: 24 * 3600,
};

const hashToken = sha256Hex;

/**
 * A new single-use token for the user. Earlier unused tokens of the same purpose expire at once,
 * so only the newest email's link works.
 */
export async function issueToken(knex: Knex, userId: string, purpose: TokenPurpose, newEmail?: string): Promise<string> {
  const token = randomBase62(32);
  await knex.transaction(async (trx) => {
    await trx('user_tokens')
      .where({ user_id: userId, purpose })
      .whereNull('used_at')
      .where('expires_at', '>', trx.fn.now())
      .update({ expires_at: trx.fn.now() });
    await trx('user_tokens').insert({
      id: uuid(),
      user_id: userId,
      purpose,
      token_hash: hashToken(token),
      new_email: newEmail ?? null,
      expires_at: trx.raw(`now() + make_interval(secs => ?)`, [TOKEN_TTL_SECONDS[purpose]]),
    });
  });
  return token;
}

/** Whether a token could be spent now, without spending it: lets callers skip expensive work for bad tokens. */
export async function isLiveToken(knex: Knex, purpose: TokenPurpose, token: string): Promise<boolean> {
  const row = await knex('user_tokens')
    .where({ token_hash: hashToken(token), purpose })
    .whereNull('used_at')
    .where('expires_at', '>', knex.fn.now())
    .first('id');
  return !!row;
}

/** Spends a token in one statement (two concurrent uses cannot both win); the owner's id, or null when unknown, used or expired. */
export async function consumeToken(knex: Knex, purpose: TokenPurpose, token: string): Promise<string | null> {
  return (await spendToken(knex, purpose, token))?.userId ?? null;
}

/** consumeToken, with the address an email change token carries. */
export async function spendToken(knex: Knex, purpose: TokenPurpose, token: string): Promise<{ userId: string; newEmail: string | null } | null> {
  const [row] = await knex('user_tokens')
    .where({ token_hash: hashToken(token), purpose })
    .whereNull('used_at')
    .where('expires_at', '>', knex.fn.now())
    .update({ used_at: knex.fn.now() })
    .returning(['user_id', 'new_email']);
  return row ? { userId: row.user_id, newEmail: row.new_email ?? null } : null;
}

/** How many tokens of this purpose the user was sent lately; bounds the emails one account can trigger. */
export async function recentTokenCount(knex: Knex, userId: string, purpose: TokenPurpose, withinSeconds: number): Promise<number> {
  const row = await knex('user_tokens')
    .where({ user_id: userId, purpose })
    .where('created_at', '>', knex.raw(`now() - make_interval(secs => ?)`, [withinSeconds]))
    .count<{ count: number }>({ count: '*' })
    .first();
  return Number(row?.count ?? 0);
}
