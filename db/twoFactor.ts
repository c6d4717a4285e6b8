import type { Knex } from 'knex';
import type { Role } from './projects';

/**
 * Two-factor state of dashboard accounts (migration 042). This file stores and compares; it never
 * sees a plain secret or code: services/twoFactor.ts seals secrets and hashes recovery codes.
 * Every "use once" rule is one conditional UPDATE, so two requests racing with the same code
 * cannot both pass.
 */

export interface TwoFactorRow {
  user_id: string;
  /** The TOTP secret, sealed (lib/secretBox.ts). */
  secret: string;
  /** null: enrolment begun, not yet confirmed with a first code. */
  enabled_at: Date | null;
  /** The TOTP time step of the last accepted code (bigint: pg returns a string). */
  last_step: string | null;
  created_at: Date;
}

export async function findTwoFactor(knex: Knex, userId: string): Promise<TwoFactorRow | undefined> {
  return knex<TwoFactorRow>('user_two_factor').where({ user_id: userId }).first();
}

export async function hasTwoFactor(knex: Knex, userId: string): Promise<boolean> {
  return !!(await knex('user_two_factor').where({ user_id: userId }).whereNotNull('enabled_at').first('user_id'));
}

/**
 * Starts (or restarts) an enrolment with a new sealed secret. null when 2FA is already enabled:
 * an enabled secret is replaced only by disabling first, which needs a code.
 */
export async function savePendingSecret(knex: Knex, userId: string, sealed: string): Promise<TwoFactorRow | null> {
  const { rows } = await knex.raw(
    `INSERT INTO user_two_factor (user_id, secret) VALUES (?, ?)
     ON CONFLICT (user_id) DO UPDATE SET secret = excluded.secret, last_step = NULL, created_at = now()
       WHERE user_two_factor.enabled_at IS NULL
     RETURNING *`,
    [userId, sealed],
  );
  return rows[0] ?? null;
}

/**
 * Marks a step used: true when `step` is later than the last accepted one (and 2FA is in the state
 * `enabled` asks for), false for a replayed or older code.
 */
export async function claimStep(knex: Knex, userId: string, step: number, enabled = true): Promise<boolean> {
  const n = await knex('user_two_factor')
    .where({ user_id: userId })
    .where((q) => q.whereNull('last_step').orWhere('last_step', '<', step))
    .where((q) => (enabled ? q.whereNotNull('enabled_at') : q.whereNull('enabled_at')))
    .update({ last_step: step });
  return n === 1;
}

/** Confirms the enrolment whose first code used `step`, with fresh recovery codes; false when that step was already used. */
export async function enableTwoFactor(knex: Knex, userId: string, step: number, codeHashes: string[]): Promise<boolean> {
  return knex.transaction(async (trx) => {
    if (!(await claimStep(trx, userId, step, false))) return false;
    await trx('user_two_factor').where({ user_id: userId }).update({ enabled_at: trx.fn.now() });
    await replaceRecoveryCodes(trx, userId, codeHashes);
    return true;
  });
}

/** Forgets the secret and every recovery code. */
export async function disableTwoFactor(knex: Knex, userId: string): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx('user_recovery_codes').where({ user_id: userId }).del();
    await trx('user_two_factor').where({ user_id: userId }).del();
  });
}

export async function replaceRecoveryCodes(knex: Knex, userId: string, codeHashes: string[]): Promise<void> {
  await knex('user_recovery_codes').where({ user_id: userId }).del();
  await knex('user_recovery_codes').insert(codeHashes.map((code_hash) => ({ user_id: userId, code_hash })));
}

/** Spends a recovery code: true the first time, false for an unknown or used one (or 2FA off). */
export async function spendRecoveryCode(knex: Knex, userId: string, codeHash: string): Promise<boolean> {
  const n = await knex('user_recovery_codes')
    .where({ user_id: userId, code_hash: codeHash })
    .whereNull('used_at')
    .whereExists((q) => q.select(knex.raw('1')).from('user_two_factor').where({ user_id: userId }).whereNotNull('enabled_at'))
    .update({ used_at: knex.fn.now() });
  return n === 1;
}

export async function recoveryCodesLeft(knex: Knex, userId: string): Promise<number> {
  const row = await knex('user_recovery_codes').where({ user_id: userId }).whereNull('used_at').count<{ n: string }[]>({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

/**
 * A user's membership of a project, and whether the project requires 2FA that the user lacks
 * (one statement: it replaces the membership lookup of every cookie request to a project).
 */
export async function memberAccess(knex: Knex, projectId: string, userId: string): Promise<{ role: Role; twoFactorMissing: boolean } | null> {
  const { rows } = await knex.raw(
    `SELECT pm.role, (p.require_two_factor AND tf.enabled_at IS NULL) AS missing
       FROM project_members pm
       JOIN projects p ON p.id = pm.project_id
       LEFT JOIN user_two_factor tf ON tf.user_id = pm.user_id
      WHERE pm.project_id = ? AND pm.user_id = ?`,
    [projectId, userId],
  );
  return rows[0] ? { role: rows[0].role as Role, twoFactorMissing: rows[0].missing === true } : null;
}

/** Sets the project's rule; the value it had before, or undefined for no such project. */
export async function setRequireTwoFactor(knex: Knex, projectId: string, required: boolean): Promise<boolean | undefined> {
  const { rows } = await knex.raw(
    `UPDATE projects p SET require_two_factor = ?, updated_at = now()
       FROM (SELECT id, require_two_factor FROM projects WHERE id = ? FOR UPDATE) old
      WHERE p.id = old.id
      RETURNING old.require_two_factor AS before`,
    [required, projectId],
  );
  return rows[0]?.before;
}
