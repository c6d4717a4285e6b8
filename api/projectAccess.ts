import type { AppContext } from './context';
import { forbidden, notFound } from './errors';
import { Action, can, membership, Role } from '../db/projects';
import { recordDenied, requestAuditor } from '../services/audit';

/**
 * Refuses a member whose role falls short of `action`: the attempt is recorded first (an
 * `access.denied` entry naming what was tried, docs/roles.md), then answered 403.
 */
export async function refuseRole(
  ctx: AppContext,
  projectId: string,
  action: Action,
  role: Role,
  target: { type: string; id: string | null } = { type: 'project', id: projectId },
  message = `Your role (${role}) may not do this on the project`,
): Promise<never> {
  const route = ctx.state.route ?? { method: ctx.method, path: ctx.path };
  await recordDenied(ctx.deps.knex, requestAuditor(ctx), { projectId, permission: action, role, route, target });
  throw forbidden(message);
}

/**
 * The signed-in user's role on a project, when it allows `action` (docs/roles.md). A project the
 * user does not belong to answers 404, as if it did not exist; a role that falls short answers 403.
 */
export async function requireProjectRole(ctx: AppContext, projectId: string, action: Action): Promise<Role> {
  // Called by session routes only, after the session middleware set the user (or answered 401).
  const user = ctx.state.user;
  if (!user) throw new Error('requireProjectRole needs a signed-in user');
  const role = await membership(ctx.deps.knex, projectId, user.id);
  if (!role) throw notFound('Project');
  if (!can(role, action)) await refuseRole(ctx, projectId, action, role);
  return role;
}
