import type { AppContext } from './context';
import { forbidden, notFound } from './errors';
import { Action, can, membership, Role } from '../db/projects';

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
  if (!can(role, action)) throw forbidden(`Your role (${role}) may not do this on the project`);
  return role;
}
