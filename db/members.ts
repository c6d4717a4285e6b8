import type { Knex } from 'knex';
import { uuid } from '../lib/ids';
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
}

/** Why a member change is refused: the actor's role does not reach, or the project would lose its last owner. */
export type MemberChangeRefusal = 'FORBIDDEN' | 'LAST_OWNER' | 'NOT_FOUND';

export interface Actor {
  userId: string;
  role: Role;
}

const presentInvite = (r: any): Invite => ({ id: r.id, email: r.email, role: r.role, invitedBy: r.invited_by, createdAt: r.created_at });

export async function listMembers(knex: Knex, projectId: string): Promise<Member[]> {
  const rows = await knex('project_members')
    .join('users', 'users.id', 'project_members.user_id')
    .where('project_members.project_id', projectId)
    .orderBy([{ column: 'project_members.created_at' }, { column: 'users.email' }])
    .select('users.id', 'users.email', 'users.email_verified', 'project_members.role', 'project_members.created_at');
  return rows.map((r: any) => ({ userId: r.id, email: r.email, role: r.role, emailVerified: r.email_verified, joinedAt: r.created_at }));
}

export async function listInvites(knex: Knex, projectId: string): Promise<Invite[]> {
  const rows = await knex('project_invites').where({ project_id: projectId }).orderBy('created_at');
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
  | { kind: 'member'; member: Member }
  | { kind: 'invite'; invite: Invite }
  | { kind: 'refused'; reason: 'FORBIDDEN' | 'ALREADY_MEMBER' };

/**
 * Adds the account that owns `email` when it is verified; otherwise records (or updates) a pending
 * invite that turns into a membership once an account proves it owns the address. An unverified
 * account is not added directly: anyone may sign up with any address.
 */
export async function inviteMember(knex: Knex, projectId: string, actor: Actor, email: string, role: Role): Promise<InviteResult> {
  if (!mayChange(actor, null, role)) return { kind: 'refused', reason: 'FORBIDDEN' };
  const address = normalizeEmail(email);
  return knex.transaction(async (trx) => {
    await lockProject(trx, projectId);
    const user = await findUserByEmail(trx, address);
    if (user && (await trx('project_members').where({ project_id: projectId, user_id: user.id }).first())) return { kind: 'refused', reason: 'ALREADY_MEMBER' };
    if (user?.email_verified) {
      const [row] = await trx('project_members').insert({ project_id: projectId, user_id: user.id, role }).returning('*');
      await trx('project_invites').where({ project_id: projectId, email: address }).del();
      return { kind: 'member', member: { userId: user.id, email: user.email, role, emailVerified: true, joinedAt: row.created_at } };
    }
    const [row] = await trx('project_invites')
      .insert({ id: uuid(), project_id: projectId, email: address, role, invited_by: actor.userId })
      .onConflict(['project_id', 'email'])
      .merge({ role, invited_by: actor.userId })
      .returning('*');
    return { kind: 'invite', invite: presentInvite(row) };
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

/** Turns the pending invites for the user's (now proven) address into memberships; the projects joined. */
export async function acceptInvites(knex: Knex | Knex.Transaction, user: Pick<UserRow, 'id' | 'email'>): Promise<string[]> {
  const invites = await knex('project_invites').where({ email: normalizeEmail(user.email) }).del().returning(['project_id', 'role']);
  if (!invites.length) return [];
  await knex('project_members')
    .insert(invites.map((i: { project_id: string; role: Role }) => ({ project_id: i.project_id, user_id: user.id, role: i.role })))
    .onConflict(['project_id', 'user_id'])
    .ignore();
  return invites.map((i: { project_id: string }) => i.project_id);
}
