import type { AppContext } from './context';
import { ApiError, forbidden, notFound } from './errors';
import { Action, can, Role } from '../db/projects';
import { memberAccess } from '../db/twoFactor';
import { recordDenied, requestAuditor } from '../services/audit';
import type { AuditTargetType } from '../db/auditLog';

/** Where the dashboard sets up 2FA; the 403 below points there. */
export const TWO_FACTOR_SETUP_PATH = '/app/account/two-factor';

/**
 * A project whose owner requires two-factor authentication refuses the cookie of a member without
 * it (docs/roles.md "Requiring two-factor authentication"); API keys are not people and pass.
 */
export const twoFactorRequired = () =>
  new ApiError(403, 'TWO_FACTOR_REQUIRED', 'This project requires two-factor authentication: set it up on your account to open the project', {
    details: { setupUrl: TWO_FACTOR_SETUP_PATH },
    suggestion: `Enable two-factor authentication at ${TWO_FACTOR_SETUP_PATH}`,
  });

/**
 * Refuses a member whose role falls short of `action`: the attempt is recorded first (an
 * `access.denied` entry naming what was tried, docs/roles.md), then answered 403.
 */
export async function refuseRole(
  ctx: AppContext,
  projectId: string,
  action: Action,
  role: Role,
  target: { type: AuditTargetType; id: string | null } = { type: 'project', id: projectId },
  message = `Your role (${role}) may not do this on the project`,
): Promise<never> {
  const route = ctx.state.route ?? { method: ctx.method, path: ctx.path };
  await recordDenied(ctx.deps.knex, requestAuditor(ctx), { projectId, permission: action, role, route, target });
  throw forbidden(message);
}

/**
 * The signed-in user's role on a project, when it allows `action` (docs/roles.md). A project the
 * user does not belong to answers 404, as if it did not exist; a member without 2FA on a project
 * that requires it answers 403 TWO_FACTOR_REQUIRED (unless `evenWithoutTwoFactor`: leaving the
 * project); a role that falls short answers 403 FORBIDDEN.
 */
export async function requireProjectRole(ctx: AppContext, projectId: string, action: Action, opts: { evenWithoutTwoFactor?: boolean } = {}): Promise<Role> {
  // Called by session routes only, after the session middleware set the user (or answered 401).
  const user = ctx.state.user;
  if (!user) throw new Error('requireProjectRole needs a signed-in user');
  const access = await memberAccess(ctx.deps.knex, projectId, user.id);
  if (!access) throw notFound('Project');
  if (access.twoFactorMissing && !opts.evenWithoutTwoFactor) throw twoFactorRequired();
  if (!can(access.role, action)) await refuseRole(ctx, projectId, action, access.role);
  return access.role;
}
