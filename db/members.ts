import type { Knex } from 'knex';
import { randomBase62, uuid } from '../lib/ids';
import { sha256Hex } from '../lib/hash';
import { can, Role } from './projects';
import { findUserByEmail, normalizeEmail, UserRow } from './users';

export interface Member {
  userId: string;
  email: string;
  role: Role;
  emailVerified: boolean;
  joinedAt: Date;
}

export interface Invite {
  id: string;
  email: string;
  role: Role;
  invitedBy: string | null;
  createdAt: Date;
  expiresAt: Date;
  /** Expired invites stay listed (so the team sees who never joined) until withdrawn or made again. */
  expired: boolean;
}

/** An invitation link works for a week; making the invite again mails a new link (and a new week). */
export const INVITE_TTL_SECONDS = 7 * 24 * 3600;

/**
 * Invitation emails go from the server's own address to any address a signed-in user names, so
 * they are bounded: per project and hour, per invited address and day (whichever projects invite
 * it), and inviting the same address again soon answers as before without mailing it again.
 */
export const INVITE_LIMITS = {
  perProject: { max: 20, seconds: 3600 },
  perAddress: { max: 3, seconds: 24 * 3600 },
  resendAfterSeconds: 600,
};

/** Why a member change is refused: the actor's role does not reach, or the project would lose its last owner. */
export type MemberChangeRefusal = 'FORBIDDEN' | 'LAST_OWNER' | 'NOT_FOUND';

export interface Actor {
  userId: string;
  role: Role;
}

const presentInvite = (r: any): Invite => ({
  id: r.id,
  email: r.email,
  role: r.role,
  invitedBy: r.invited_by,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  expired: Boolean(r.expired),
});

const hashInviteToken = sha256Hex;

export async function listMembers(knex: Knex, projectId: string): Promise<Member[]> {
  const rows = await knex('project_members')
    .join('users', 'users.id', 'project_members.user_id')
    .where('project_members.project_id', projectId)
    .orderBy([{ column: 'project_members.created_at' }, { column: 'users.email' }])
    .select('users.id', 'users.email', 'users.email_verified', 'project_members.role', 'project_members.created_at');
  return rows.map((r: any) => ({ userId: r.id, email: r.email, role: r.role, emailVerified: r.email_verified, joinedAt: r.created_at }));
}

export async function listInvites(knex: Knex, projectId: string): Promise<Invite[]> {
  const rows = await knex('project_invites').where({ project_id: projectId }).orderBy('created_at').select('*', knex.raw('expires_at <= now() AS expired'));
  return rows.map(presentInvite);
}

/** Serialises member changes per project (and with resets), so the owner count read below stays true until commit. */
const lockProject = (trx: Knex.Transaction, projectId: string) => trx('projects').where({ id: projectId }).forUpdate().first('id');

async function ownerCount(trx: Knex.Transaction, projectId: string): Promise<number> {
  const row = await trx('project_members').where({ project_id: projectId, role: 'OWNER' }).count<{ count: number }>({ count: '*' }).first();
  return Number(row?.count ?? 0);
}

/** Granting OWNER, or touching an OWNER, is for owners only; the rest of the team is for whoever may manage members. */
function mayChange(actor: Actor, targetRole: Role | null, newRole: Role | null): boolean {
  if (!can(actor.role, 'members.manage')) return false;
  if (targetRole === 'OWNER' || newRole === 'OWNER') return can(actor.role, 'owners.manage');
  return true;
}

export type InviteResult =
  /** `mail`: whether to send the "you were added" email; false past the address's daily bound of mails from projects. */
  | { kind: 'member'; member: Member; mail: boolean }
  /** `token` is the link's secret to mail; null when the address was mailed moments ago and gets nothing new. */
  | { kind: 'invite'; invite: Invite; token: string | null }
  | { kind: 'refused'; reason: 'FORBIDDEN' | 'ALREADY_MEMBER' }
  | { kind: 'limited'; scope: 'project' | 'address'; retryAfterSeconds: number };

/** How many invitation emails went out in the window, and when the oldest of them leaves it. */
async function sentWithin(trx: Knex.Transaction, where: Record<string, string>, seconds: number): Promise<{ count: number; retryAfterSeconds: number }> {
  const row = await trx('invite_emails')
    .where(where)
    .where('created_at', '>', trx.raw('now() - make_interval(secs => ?)', [seconds]))
    .first(trx.raw('count(*)::int AS count'), trx.raw('ceil(extract(epoch FROM min(created_at) + make_interval(secs => ?) - now()))::int AS retry', [seconds]));
  return { count: row.count, retryAfterSeconds: Math.max(1, row.retry ?? 1) };
}

/**
 * Adds the account that owns `email` when it is verified; otherwise records (or updates) a pending
 * invite with a fresh single-use token for the caller to mail. The invite becomes a membership only
 * when a signed-in account whose verified address is the invited one accepts it with that token
 * (acceptInvite): anyone may sign up with any address, and verifying or resetting proves the inbox
 * at that moment, not that the account was made by its owner.
 */
export async function inviteMember(knex: Knex, projectId: string, actor: Actor, email: string, role: Role): Promise<InviteResult> {
  if (!mayChange(actor, null, role)) return { kind: 'refused', reason: 'FORBIDDEN' };
  const address = normalizeEmail(email);
  return knex.transaction(async (trx): Promise<InviteResult> => {
    await lockProject(trx, projectId);
    const user = await findUserByEmail(trx, address);
    if (user && (await trx('project_members').where({ project_id: projectId, user_id: user.id }).first())) return { kind: 'refused', reason: 'ALREADY_MEMBER' };
    const existing = await trx('project_invites')
      .where({ project_id: projectId, email: address })
      .first(
        'role',
        trx.raw('(token_hash IS NOT NULL AND expires_at > now() AND last_sent_at > now() - make_interval(secs => ?)) AS recently_sent', [
          INVITE_LIMITS.resendAfterSeconds,
        ]),
      );
    // A pending OWNER invite is an owner's business like an OWNER membership: re-inviting over it changes its role.
    if (existing && !mayChange(actor, existing.role, role)) return { kind: 'refused', reason: 'FORBIDDEN' };
    if (user?.email_verified) {
      const [row] = await trx('project_members').insert({ project_id: projectId, user_id: user.id, role, added_by: actor.userId }).returning('*');
      await trx('project_invites').where({ project_id: projectId, email: address }).del();
      // The add itself is never refused (it is the spec's 201), but add-and-remove cycles must not
      // turn the "you were added" email into a mailer: it shares the address's daily bound with invitations.
      await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`invite:${address}`]);
      const perAddress = await sentWithin(trx, { email: address }, INVITE_LIMITS.perAddress.seconds);
      const mail = perAddress.count < INVITE_LIMITS.perAddress.max;
      if (mail) await trx('invite_emails').insert({ id: uuid(), project_id: projectId, email: address, kind: 'added' });
      return { kind: 'member', member: { userId: user.id, email: user.email, role, emailVerified: true, joinedAt: row.created_at }, mail };
    }
    if (existing?.recently_sent) {
      const [row] = await trx('project_invites').where({ project_id: projectId, email: address }).update({ role, invited_by: actor.userId }).returning('*');
      return { kind: 'invite', invite: presentInvite(row), token: null };
    }
    // Serialises invitations of one address across projects, so its daily count stays true until commit.
    await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`invite:${address}`]);
    const perProject = await sentWithin(trx, { project_id: projectId, kind: 'invite' }, INVITE_LIMITS.perProject.seconds);
    if (perProject.count >= INVITE_LIMITS.perProject.max) return { kind: 'limited', scope: 'project', retryAfterSeconds: perProject.retryAfterSeconds };
    const perAddress = await sentWithin(trx, { email: address }, INVITE_LIMITS.perAddress.seconds);
    if (perAddress.count >= INVITE_LIMITS.perAddress.max) return { kind: 'limited', scope: 'address', retryAfterSeconds: perAddress.retryAfterSeconds };

    const token = randomBase62(32);
    const fresh = {
      role,
      invited_by: actor.userId,
      token_hash: hashInviteToken(token),
      expires_at: trx.raw('now() + make_interval(secs => ?)', [INVITE_TTL_SECONDS]),
      last_sent_at: trx.fn.now(),
    };
    const [row] = await trx('project_invites')
      .insert({ id: uuid(), project_id: projectId, email: address, ...fresh })
      .onConflict(['project_id', 'email'])
      .merge(fresh)
      .returning('*');
    await trx('invite_emails').insert({ id: uuid(), project_id: projectId, email: address });
    return { kind: 'invite', invite: presentInvite(row), token };
  });
}

/** What an invitation link offers, for its page and `GET /auth/invites/:token`; null when unknown, used or expired. */
export interface InviteOffer {
  projectId: string;
  projectName: string;
  role: Role;
  email: string;
  expiresAt: Date;
  inviterEmail: string | null;
}

export async function findInviteByToken(knex: Knex, token: string): Promise<InviteOffer | null> {
  const row = await knex('project_invites')
    .join('projects', 'projects.id', 'project_invites.project_id')
    .leftJoin('users', 'users.id', 'project_invites.invited_by')
    .where('project_invites.token_hash', hashInviteToken(token))
    .where('project_invites.expires_at', '>', knex.fn.now())
    .first(
      'project_invites.project_id',
      'projects.name',
      'project_invites.role',
      'project_invites.email',
      'project_invites.expires_at',
      'users.email as inviter_email',
    );
  if (!row) return null;
  return {
    projectId: row.project_id,
    projectName: row.name,
    role: row.role,
    email: row.email,
    expiresAt: row.expires_at,
    inviterEmail: row.inviter_email ?? null,
  };
}

/** Why an invite is not accepted: no live invite has this token, or the signed-in account is another address's. */
export type AcceptRefusal = 'NOT_FOUND' | 'WRONG_ACCOUNT';

/**
 * Spends the invite's token and makes `user` a member with the invite's role. Only the account of
 * the invited address may: a forwarded link gets nothing (and leaves the invite for its owner). The
 * token reached the invited inbox, so holding it proves the address as a verification link would:
 * an unverified account of that address is verified by accepting, and nobody who signs up from an
 * invite is asked for a second email. (Someone who signed up with another person's address cannot
 * accept: the token only ever went to that person's inbox.)
 */
export async function acceptInvite(
  knex: Knex,
  token: string,
  user: Pick<UserRow, 'id' | 'email' | 'email_verified'>,
): Promise<AcceptRefusal | { projectId: string; role: Role; verified: boolean }> {
  const tokenHash = hashInviteToken(token);
  const invite = await knex('project_invites')
    .where({ token_hash: tokenHash })
    .where('expires_at', '>', knex.fn.now())
    .first('id', 'project_id', 'email', 'invited_by');
  if (!invite) return 'NOT_FOUND';
  if (normalizeEmail(user.email) !== invite.email) return 'WRONG_ACCOUNT';
  return knex.transaction(async (trx) => {
    // The project first, as every member change takes it, then the invite: spent in one statement, so two uses cannot both win.
    await lockProject(trx, invite.project_id);
    const [spent] = await trx('project_invites').where({ id: invite.id, token_hash: tokenHash }).where('expires_at', '>', trx.fn.now()).del().returning('role');
    if (!spent) return 'NOT_FOUND';
    // The address is checked again in the statement that proves it: an email change in between must not verify the new one.
    const proved = await trx('users')
      .where({ id: user.id, email: invite.email, email_verified: false })
      .update({ email_verified: true, updated_at: trx.fn.now() });
    await trx('project_members')
      .insert({ project_id: invite.project_id, user_id: user.id, role: spent.role, added_by: invite.invited_by })
      .onConflict(['project_id', 'user_id'])
      .ignore();
    // Someone already a member (added directly meanwhile) keeps the role they have.
    const member = await trx('project_members').where({ project_id: invite.project_id, user_id: user.id }).first('role');
    return { projectId: invite.project_id as string, role: member.role as Role, verified: proved > 0 };
  });
}

export async function cancelInvite(knex: Knex, projectId: string, actor: Actor, inviteId: string): Promise<MemberChangeRefusal | null> {
  const invite = await knex('project_invites').where({ project_id: projectId, id: inviteId }).first();
  if (!invite) return 'NOT_FOUND';
  if (!mayChange(actor, invite.role, null)) return 'FORBIDDEN';
  await knex('project_invites').where({ id: inviteId }).del();
  return null;
}

/** A role change or (newRole null) a removal; anyone may remove themselves, except the last owner. */
export async function changeMember(knex: Knex, projectId: string, actor: Actor, userId: string, newRole: Role | null): Promise<MemberChangeRefusal | Member> {
  return knex.transaction(async (trx) => {
    await lockProject(trx, projectId);
    const target = await trx('project_members').where({ project_id: projectId, user_id: userId }).first();
    if (!target) return 'NOT_FOUND';
    const leaving = newRole === null && userId === actor.userId;
    if (!leaving && !mayChange(actor, target.role, newRole)) return 'FORBIDDEN';
    if (target.role === 'OWNER' && newRole !== 'OWNER' && (await ownerCount(trx, projectId)) <= 1) return 'LAST_OWNER';
    if (newRole === null) {
      await trx('project_members').where({ project_id: projectId, user_id: userId }).del();
      newRole = target.role as Role;
    } else {
      await trx('project_members').where({ project_id: projectId, user_id: userId }).update({ role: newRole });
    }
    const user = await trx<UserRow>('users').where({ id: userId }).first();
    return { userId, email: user!.email, role: newRole, emailVerified: user!.email_verified, joinedAt: target.created_at };
  });
}

/** A membership as its "Leave project" link names it (lib/leaveLinks.ts), for the link's page. */
export interface LeaveOffer {
  projectName: string;
  role: Role;
  email: string;
  joinedAt: Date;
}

/** The membership of `userId` in `projectId` when it is still the one that joined at `joinedAt` (ms); null otherwise. */
export async function findLeaveOffer(knex: Knex, projectId: string, userId: string, joinedAt: number): Promise<LeaveOffer | null> {
  const row = await knex('project_members')
    .join('projects', 'projects.id', 'project_members.project_id')
    .join('users', 'users.id', 'project_members.user_id')
    .where({ 'project_members.project_id': projectId, 'project_members.user_id': userId })
    .first('projects.name', 'project_members.role', 'users.email', 'project_members.created_at');
  if (!row || new Date(row.created_at).getTime() !== joinedAt) return null;
  return { projectName: row.name, role: row.role, email: row.email, joinedAt: row.created_at };
}
