import { route } from '../route';
import { ApiError, conflict, notFound } from '../errors';
import { IdParams } from '../schemas/common';
import { InviteBody, InviteOut, InviteParams, MemberOut, MemberParams, RoleBody, SecurityOut, SetupStateOut, TeamOut } from '../schemas/teams';
import { refuseRole, requireProjectRole } from '../projectAccess';
import type { AppContext } from '../context';
import type { Role } from '../../db/projects';
import { sendSystemEmail } from '../../services/systemEmail';
import { mailAddedMember } from '../../services/memberEmails';
import {
  cancelInvite,
  changeMember,
  INVITE_LIMITS,
  INVITE_TTL_SECONDS,
  inviteMember,
  listInvites,
  listMembers,
  Member,
  MemberChangeRefusal,
} from '../../db/members';
import { findProject, setupState } from '../../db/projects';
import { securityState } from '../../db/security';
import { audited, requestAuditor } from '../../services/audit';
import { listAudit } from '../../db/auditLog';
import { AuditPageOut, AuditQuery } from '../schemas/audit';
import { presentAuditEntry } from '../presenters/audit';
import { presentInvite, presentMember, presentSecurityState } from '../presenters/teams';

// Subject and body are fixed template source: the project name, the inviter and the role go in as
// variables, so a name like `{{ 7 | times: 6 }}` is shown as written, never evaluated.
const INVITE_SUBJECT = 'You are invited to {{ project }}';
const INVITE_EMAIL = `<p>{{ inviter }} invited you to the project “{{ project }}” as {{ role }}.</p>
<p>To join, open this link, sign in (or sign up) with this address and press “Accept invite”: <a href="{{ url }}">{{ url }}</a></p>
<p>The link works once and expires in {{ days }} days. If you did not expect this, ignore this email.</p>`;

/** A member change's answer; a refusal by the target rules (db/members.ts) is recorded like any role's refusal. */
async function answer(ctx: AppContext, projectId: string, role: Role, targetUserId: string, result: MemberChangeRefusal | Member): Promise<Member> {
  if (result === 'NOT_FOUND') throw notFound('Member');
  if (result === 'FORBIDDEN')
    return refuseRole(
      ctx,
      projectId,
      role === 'MEMBER' ? 'members.manage' : 'owners.manage',
      role,
      { type: 'user', id: targetUserId },
      'Your role may not change this member: only owners grant or change the OWNER role',
    );
  if (result === 'LAST_OWNER') throw conflict('A project keeps at least one owner: make another member OWNER first');
  return result;
}

export default [
  route({
    method: 'get',
    path: '/projects/:id/setup-state',
    auth: 'session',
    tag: 'projects',
    summary: 'Onboarding checklist: domain added and verified, first contact, template, tracked event and sent email',
    params: IdParams,
    responses: { 200: { description: 'checklist', schema: SetupStateOut } },
    async handler(ctx, { params }) {
      await requireProjectRole(ctx, params.id, 'project.read');
      return await setupState(ctx.deps.knex, params.id);
    },
  }),
  route({
    method: 'get',
    path: '/projects/:id/security',
    auth: 'session',
    tag: 'projects',
    summary: 'Bounce and complaint rates over the security window, thresholds, and recent suspensions',
    params: IdParams,
    responses: { 200: { description: 'security state', schema: SecurityOut } },
    async handler(ctx, { params }) {
      await requireProjectRole(ctx, params.id, 'project.read');
      return presentSecurityState(await securityState(ctx.deps.knex, params.id, ctx.deps.config.security));
    },
  }),
  route({
    method: 'get',
    path: '/projects/:id/audit',
    auth: 'session',
    tag: 'projects',
    summary: 'The audit log: who changed what in the project, newest first (owner, admin); filter by action, actor and time',
    params: IdParams,
    resource: 'Project',
    query: AuditQuery,
    responses: { 200: { description: 'a page of entries', schema: AuditPageOut }, 403: { description: 'a MEMBER may not read the log' } },
    async handler(ctx, { params, query }) {
      await requireProjectRole(ctx, params.id, 'audit.read');
      const { rows, total, totalPages, projectName } = await listAudit(ctx.deps.knex, params.id, query);
      return {
        project: { id: params.id, name: projectName },
        data: rows.map(presentAuditEntry),
        total,
        page: query.page,
        pageSize: query.pageSize,
        totalPages,
      };
    },
  }),
  route({
    method: 'get',
    path: '/projects/:id/members',
    auth: 'session',
    tag: 'projects',
    summary: 'Members with their roles, and pending invites',
    params: IdParams,
    responses: { 200: { description: 'team', schema: TeamOut } },
    async handler(ctx, { params }) {
      await requireProjectRole(ctx, params.id, 'project.read');
      const [members, invites] = await Promise.all([listMembers(ctx.deps.knex, params.id), listInvites(ctx.deps.knex, params.id)]);
      return { members: members.map(presentMember), invites: invites.map(presentInvite) };
    },
  }),
  route({
    method: 'post',
    path: '/projects/:id/members',
    audit: ['member.add', 'member.invite'],
    auth: 'session',
    tag: 'projects',
    summary:
      'Invite by email: a verified account joins at once (201) and is emailed who added it, with a link to leave; any other address gets a pending invite and an email with a link to accept it (202; the same address again within 10 minutes is not mailed again)',
    params: IdParams,
    body: InviteBody,
    responses: {
      201: { description: 'added', schema: MemberOut },
      202: { description: 'invited', schema: InviteOut },
      403: { description: 'role may not invite (with this role)' },
      409: { description: 'already a member' },
      429: { description: 'RATE_LIMIT_EXCEEDED: too many invitation emails for this project (hour) or this address (day); see Retry-After' },
    },
    async handler(ctx, { params, body, user }) {
      const role = await requireProjectRole(ctx, params.id, 'members.manage');
      const result = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => inviteMember(trx, params.id, { userId: user.id, role }, body.email, body.role),
        (r) =>
          (r.kind === 'member' && {
            projectId: params.id,
            action: 'member.add',
            target: { type: 'user', id: r.member.userId },
            details: { role: r.member.role },
          }) ||
          (r.kind === 'invite' && {
            projectId: params.id,
            action: 'member.invite',
            target: { type: 'invite', id: r.invite.id },
            details: { role: r.invite.role },
          }),
      );
      if (result.kind === 'refused') {
        if (result.reason === 'ALREADY_MEMBER') throw conflict('This person is already a member of the project');
        return refuseRole(
          ctx,
          params.id,
          'owners.manage',
          role,
          { type: 'invite', id: null },
          'Only owners may invite an OWNER, or change an invite made for one',
        );
      }
      if (result.kind === 'limited') {
        const message =
          result.scope === 'project'
            ? `At most ${INVITE_LIMITS.perProject.max} invitation emails per project and hour`
            : `At most ${INVITE_LIMITS.perAddress.max} invitation emails per address and day`;
        throw new ApiError(429, 'RATE_LIMIT_EXCEEDED', message, { headers: { 'Retry-After': String(result.retryAfterSeconds) } });
      }
      if (result.kind === 'member') {
        // Added without being asked: told who added them where, with a link to leave (unless the address got its day's share of such mail).
        if (result.mail) {
          const project = (await findProject(ctx.deps.knex, params.id))!;
          await mailAddedMember(ctx.deps, {
            to: result.member.email,
            adder: user.email,
            projectId: params.id,
            projectName: project.name,
            role: result.member.role,
            userId: result.member.userId,
            joinedAt: result.member.joinedAt,
          });
        }
        ctx.status = 201;
        return presentMember(result.member);
      }
      if (result.token) {
        const project = (await findProject(ctx.deps.knex, params.id))!;
        await sendSystemEmail(ctx.deps, {
          to: result.invite.email,
          subject: INVITE_SUBJECT,
          body: INVITE_EMAIL,
          variables: {
            inviter: user.email,
            project: project.name,
            role: result.invite.role,
            url: `${ctx.deps.config.appUrl}/app/invite?token=${result.token}`,
            days: INVITE_TTL_SECONDS / 86400,
          },
        });
      }
      ctx.status = 202;
      return presentInvite(result.invite);
    },
  }),
  route({
    method: 'patch',
    path: '/projects/:id/members/:userId',
    audit: 'member.role',
    auth: 'session',
    tag: 'projects',
    summary: "Change a member's role",
    params: MemberParams,
    resource: 'Member',
    body: RoleBody,
    responses: { 200: { description: 'member', schema: MemberOut }, 409: { description: 'would leave the project without an owner' } },
    async handler(ctx, { params, body, user }) {
      const role = await requireProjectRole(ctx, params.id, 'members.manage');
      return presentMember(
        await answer(
          ctx,
          params.id,
          role,
          params.userId,
          await audited(
            ctx.deps.knex,
            requestAuditor(ctx),
            (trx) => changeMember(trx, params.id, { userId: user.id, role }, params.userId, body.role),
            (r) =>
              typeof r === 'object' && {
                projectId: params.id,
                action: 'member.role',
                target: { type: 'user', id: params.userId },
                details: { role: body.role },
              },
          ),
        ),
      );
    },
  }),
  route({
    method: 'delete',
    path: '/projects/:id/members/:userId',
    audit: 'member.remove',
    auth: 'session',
    tag: 'projects',
    summary: 'Remove a member; any member may remove themselves (leave), except the last owner',
    params: MemberParams,
    resource: 'Member',
    responses: { 204: { description: 'removed' }, 409: { description: 'would leave the project without an owner' } },
    async handler(ctx, { params, user }) {
      // Leaving needs no 2FA: a member who will not set it up for a project that requires it may go.
      const role = await requireProjectRole(ctx, params.id, 'project.read', { evenWithoutTwoFactor: params.userId === user.id });
      await answer(
        ctx,
        params.id,
        role,
        params.userId,
        await audited(
          ctx.deps.knex,
          requestAuditor(ctx),
          (trx) => changeMember(trx, params.id, { userId: user.id, role }, params.userId, null),
          (r) =>
            typeof r === 'object' && { projectId: params.id, action: 'member.remove', target: { type: 'user', id: params.userId }, details: { role: r.role } },
        ),
      );
      ctx.status = 204;
    },
  }),
  route({
    method: 'delete',
    path: '/projects/:id/invites/:inviteId',
    audit: 'invite.withdraw',
    auth: 'session',
    tag: 'projects',
    summary: 'Withdraw a pending invite',
    params: InviteParams,
    resource: 'Invite',
    responses: { 204: { description: 'withdrawn' } },
    async handler(ctx, { params, user }) {
      const role = await requireProjectRole(ctx, params.id, 'members.manage');
      const refused = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => cancelInvite(trx, params.id, { userId: user.id, role }, params.inviteId),
        (r) => r === null && { projectId: params.id, action: 'invite.withdraw', target: { type: 'invite', id: params.inviteId } },
      );
      if (refused === 'NOT_FOUND') throw notFound('Invite');
      if (refused === 'FORBIDDEN')
        return refuseRole(ctx, params.id, 'owners.manage', role, { type: 'invite', id: params.inviteId }, 'Only owners may withdraw an OWNER invite');
      ctx.status = 204;
    },
  }),
];
