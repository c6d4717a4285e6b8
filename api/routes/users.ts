import { route } from '../route';
import type { AppContext } from '../context';
import { ApiError, conflict, notFound } from '../errors';
import { IdParams } from '../schemas/common';
import { MyProjectsOut, ProjectCreate, ProjectOut, ProjectUpdate, ProjectUpdateOut } from '../schemas/projects';
import { ResetOut, SecurityOut } from '../schemas/teams';
import { ConsumptionOut, InvoiceOut, LimitsBody, LimitsOut, SessionOut } from '../schemas/billing';
import { requireProjectRole, TWO_FACTOR_SETUP_PATH } from '../projectAccess';
import { hasTwoFactor, setRequireTwoFactor } from '../../db/twoFactor';
import { recordAudit } from '../../db/auditLog';
import { createProject, deleteProject, projectsOfUser, resetProjectData, rotateKeys, updateProject } from '../../db/projects';

import { securityState } from '../../db/security';
import { updateSendingPolicy } from '../../db/sendingPolicy';
import { billingAccount, consumption, currentPeriod, getLimits, listInvoices, setLimits } from '../../db/billing';
import { cancelProjectExecutions } from '../../services/projectExecutions';

import type Stripe from 'stripe';
import { stripeCall, StripeError, StripeSettings } from '../../lib/stripe';
import { presentProject } from '../presenters/projects';
import { presentUser } from '../presenters/users';
import { MeOut } from '../schemas/profile';
import { presentInvoice, presentPeriod } from '../presenters/billing';
import { presentSecurityState } from '../presenters/teams';
import { audited, changedKeys, requestAuditor } from '../../services/audit';

/** Running executions are cancelled before any row goes: a workflow must not keep acting on a wiped project. */
async function cancelExecutions(ctx: AppContext, projectId: string): Promise<number> {
  try {
    return await cancelProjectExecutions(ctx.deps.temporal, projectId);
  } catch (err) {
    ctx.deps.log.error({ err, projectId }, 'could not cancel the project executions');
    throw new ApiError(503, 'TEMPORAL_UNAVAILABLE', 'Could not cancel the running executions of the project; nothing was deleted', {
      suggestion: 'Retry once the Temporal server is reachable',
    });
  }
}

/** Checkout and portal need billing on; off (the default), they answer 404 and say why. */
function enabledBilling(ctx: AppContext): StripeSettings {
  const settings = ctx.deps.config.billing;
  if (!settings.enabled) {
    throw new ApiError(404, 'BILLING_DISABLED', 'Billing is not enabled on this server', { suggestion: 'Set STRIPE_SECRET_KEY to enable billing' });
  }
  return settings;
}

async function stripe<T>(settings: StripeSettings, call: (client: Stripe) => Promise<T>): Promise<T> {
  try {
    return await stripeCall(settings, call);
  } catch (err) {
    if (err instanceof StripeError) throw new ApiError(502, 'BILLING_PROVIDER_ERROR', err.message);
    throw err;
  }
}

const billingPage = (ctx: AppContext, projectId: string) => `${ctx.deps.config.appUrl}/projects/${projectId}/billing`;

export default [
  route({
    method: 'get',
    path: '/users/@me',
    auth: 'session',
    tag: 'users',
    summary: 'The signed-in user',
    responses: { 200: { description: 'the user', schema: MeOut } },
    handler(ctx, { user }) {
      return presentUser(user);
    },
  }),
  route({
    method: 'get',
    path: '/users/@me/projects',
    auth: 'session',
    tag: 'users',
    summary: "The signed-in user's projects (keys masked), with their role and who added them",
    responses: { 200: { description: 'projects', schema: MyProjectsOut } },
    async handler(ctx, { user }) {
      const rows = await projectsOfUser(ctx.deps.knex, user.id);
      return rows.map((r) => ({ ...presentProject(r), role: r.role, addedBy: r.added_by_email }));
    },
  }),
  route({
    method: 'post',
    path: '/users/@me/projects',
    audit: 'project.create',
    auth: 'session',
    tag: 'users',
    summary: 'Create a project; the response is the only time its keys are shown in full',
    body: ProjectCreate,
    responses: { 201: { description: 'created', schema: ProjectOut } },
    async handler(ctx, { body, user }) {
      const { row, keys } = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => createProject(trx, user.id, body.name),
        (p) => ({ projectId: p.row.id, action: 'project.create', target: { type: 'project', id: p.row.id }, details: { name: p.row.name } }),
      );
      ctx.status = 201;
      return presentProject(row, keys);
    },
  }),
  route({
    method: 'patch',
    path: '/users/@me/projects/:id',
    audit: ['project.update', 'project.require_two_factor'],
    auth: 'session',
    tag: 'users',
    summary: 'Update project settings (owner, admin; requireTwoFactor: owner only)',
    params: IdParams,
    resource: 'Project',
    body: ProjectUpdate,
    responses: {
      200: { description: 'the project and its sending policy', schema: ProjectUpdateOut },
      409: { description: 'requireTwoFactor: true from an owner who has no 2FA themselves' },
    },
    async handler(ctx, { params, body, user }) {
      const { settings: policy, requireTwoFactor, ...fields } = body;
      await requireProjectRole(ctx, params.id, requireTwoFactor === undefined ? 'project.update' : 'twoFactor.require');
      // The rule would shut its own author out at once: they enrol first.
      if (requireTwoFactor && !(await hasTwoFactor(ctx.deps.knex, user.id))) {
        throw conflict('Enable two-factor authentication on your own account before requiring it of the members', {
          suggestion: `Enable it at ${TWO_FACTOR_SETUP_PATH}`,
        });
      }
      const who = requestAuditor(ctx);
      const changed = changedKeys(body).filter((k) => k !== 'requireTwoFactor');
      let twoFactorChanged = false;
      const { row, settings } = await audited(
        ctx.deps.knex,
        who,
        async (trx) => {
          if (requireTwoFactor !== undefined && (await setRequireTwoFactor(trx, params.id, requireTwoFactor)) !== requireTwoFactor) {
            twoFactorChanged = true;
            await recordAudit(trx, {
              ...who,
              projectId: params.id,
              action: 'project.require_two_factor',
              target: { type: 'project', id: params.id },
              details: { requireTwoFactor },
            });
          }
          return { row: (await updateProject(trx, params.id, fields))!, settings: await updateSendingPolicy(trx, params.id, policy ?? {}) };
        },
        // Every PATCH leaves an entry: its own for the 2FA rule, `project.update` for anything else (or for a request that changed nothing else).
        () =>
          (changed.length > 0 || !twoFactorChanged) && {
            projectId: params.id,
            action: 'project.update',
            target: { type: 'project', id: params.id },
            details: { changed },
          },
      );
      return { ...presentProject(row), settings: settings! };
    },
  }),
  route({
    method: 'delete',
    path: '/users/@me/projects/:id',
    auth: 'session',
    tag: 'users',
    summary: 'Delete a project, all its data and uploaded images (owner only)',
    params: IdParams,
    resource: 'Project',
    responses: { 204: { description: 'deleted' } },
    async handler(ctx, { params }) {
      await requireProjectRole(ctx, params.id, 'project.delete');
      await cancelExecutions(ctx, params.id);
      await deleteProject(ctx.deps.knex, params.id);
      await ctx.deps.runtime.images.removeProject(params.id);
      ctx.status = 204;
    },
  }),
  route({
    method: 'post',
    path: '/users/@me/projects/:id/regenerate-keys',
    audit: 'keys.rotate',
    auth: 'session',
    tag: 'users',
    summary: 'Rotate both keys at once; the old pair stops working immediately (owner, admin)',
    params: IdParams,
    resource: 'Project',
    responses: { 200: { description: 'the project with its new keys, shown in full this once', schema: ProjectOut } },
    async handler(ctx, { params }) {
      await requireProjectRole(ctx, params.id, 'keys.rotate');
      const rotated = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => rotateKeys(trx, params.id),
        (r) => r && { projectId: params.id, action: 'keys.rotate', target: { type: 'project', id: params.id } },
      );
      if (!rotated) throw notFound('Project');
      return presentProject(rotated.row, rotated.keys);
    },
  }),
  route({
    method: 'get',
    path: '/users/@me/projects/:id/security',
    auth: 'session',
    tag: 'users',
    summary: 'Bounce and complaint rates over the security window, and recent suspensions',
    params: IdParams,
    resource: 'Project',
    responses: { 200: { description: 'security state', schema: SecurityOut } },
    async handler(ctx, { params }) {
      await requireProjectRole(ctx, params.id, 'project.read');
      return presentSecurityState(await securityState(ctx.deps.knex, params.id, ctx.deps.config.security));
    },
  }),
  route({
    method: 'post',
    path: '/users/@me/projects/:id/reset',
    audit: 'project.reset',
    auth: 'session',
    tag: 'users',
    summary: 'Wipe the project data and cancel its running executions; keys, members, domains and billing stay (owner only, irreversible)',
    params: IdParams,
    resource: 'Project',
    responses: { 200: { description: 'wiped', schema: ResetOut }, 503: { description: 'Temporal unreachable; nothing deleted' } },
    async handler(ctx, { params }) {
      await requireProjectRole(ctx, params.id, 'project.reset');
      const cancelledExecutions = await cancelExecutions(ctx, params.id);
      const deleted = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => resetProjectData(trx, params.id),
        (counts) => ({ projectId: params.id, action: 'project.reset', target: { type: 'project', id: params.id }, details: { deleted: counts } }),
      );
      return { success: true, deleted, cancelledExecutions };
    },
  }),
  route({
    method: 'post',
    path: '/users/@me/projects/:id/checkout',
    auth: 'session',
    tag: 'billing',
    summary: 'Start a subscription checkout with the billing provider (owner only; 404 when billing is off)',
    params: IdParams,
    resource: 'Project',
    responses: { 200: { description: 'checkout session', schema: SessionOut }, 404: { description: 'BILLING_DISABLED, or no such project' } },
    async handler(ctx, { params, user }) {
      await requireProjectRole(ctx, params.id, 'billing.manage');
      const settings = enabledBilling(ctx);
      if (!settings.priceId) throw new ApiError(503, 'BILLING_MISCONFIGURED', 'Billing is enabled but STRIPE_PRICE_ID is not set');
      const account = await billingAccount(ctx.deps.knex, params.id);
      const session = await stripe(settings, (client) =>
        client.checkout.sessions.create({
          mode: 'subscription',
          line_items: [{ price: settings.priceId!, quantity: 1 }],
          // Both let the webhook tie Stripe's customer and invoices back to the project.
          client_reference_id: params.id,
          subscription_data: { metadata: { project_id: params.id } },
          ...(account ? { customer: account.customerId } : { customer_email: user.email }),
          success_url: `${billingPage(ctx, params.id)}?checkout=success`,
          cancel_url: `${billingPage(ctx, params.id)}?checkout=cancelled`,
        }),
      );
      // Stripe's type allows null (embedded checkouts); a hosted checkout, the kind made here, has its URL.
      return { url: session.url! };
    },
  }),
  route({
    method: 'post',
    path: '/users/@me/projects/:id/billing-portal',
    auth: 'session',
    tag: 'billing',
    summary: "Open the billing provider's customer portal (owner only; 404 when billing is off)",
    params: IdParams,
    resource: 'Project',
    responses: {
      200: { description: 'portal session', schema: SessionOut },
      404: { description: 'BILLING_DISABLED, or no such project' },
      409: { description: 'no subscription yet' },
    },
    async handler(ctx, { params }) {
      await requireProjectRole(ctx, params.id, 'billing.manage');
      const settings = enabledBilling(ctx);
      const account = await billingAccount(ctx.deps.knex, params.id);
      if (!account) throw conflict('This project has no billing account yet: start a subscription with checkout first');
      const session = await stripe(settings, (client) =>
        client.billingPortal.sessions.create({ customer: account.customerId, return_url: billingPage(ctx, params.id) }),
      );
      return { url: session.url };
    },
  }),
  route({
    method: 'get',
    path: '/users/@me/projects/:id/billing-limits',
    auth: 'session',
    tag: 'billing',
    summary: 'Monthly caps per category (null: no cap)',
    params: IdParams,
    resource: 'Project',
    responses: { 200: { description: 'caps', schema: LimitsOut } },
    async handler(ctx, { params }) {
      await requireProjectRole(ctx, params.id, 'project.read');
      return await getLimits(ctx.deps.knex, params.id);
    },
  }),
  route({
    method: 'put',
    path: '/users/@me/projects/:id/billing-limits',
    audit: 'billing.limits',
    auth: 'session',
    tag: 'billing',
    summary: 'Set monthly caps; sends beyond the email cap are refused with 403 BILLING_LIMIT_REACHED (owner, admin)',
    params: IdParams,
    resource: 'Project',
    body: LimitsBody,
    responses: { 200: { description: 'caps', schema: LimitsOut } },
    async handler(ctx, { params, body }) {
      await requireProjectRole(ctx, params.id, 'billing.limits');
      return await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => setLimits(trx, params.id, body),
        (limits) => ({
          projectId: params.id,
          action: 'billing.limits',
          target: { type: 'project', id: params.id },
          details: { changed: changedKeys(body), ...limits },
        }),
      );
    },
  }),
  route({
    method: 'get',
    path: '/users/@me/projects/:id/billing-consumption',
    auth: 'session',
    tag: 'billing',
    summary: 'Consumption of the current calendar month (UTC) per category, with its cap',
    params: IdParams,
    resource: 'Project',
    responses: { 200: { description: 'consumption', schema: ConsumptionOut } },
    async handler(ctx, { params }) {
      await requireProjectRole(ctx, params.id, 'project.read');
      const [used, limits] = await Promise.all([consumption(ctx.deps.knex, params.id), getLimits(ctx.deps.knex, params.id)]);
      return {
        period: presentPeriod(currentPeriod()),
        emails: { used: used.emails, limit: limits.emails },
        contacts: { used: used.contacts, limit: limits.contacts },
      };
    },
  }),
  route({
    method: 'get',
    path: '/users/@me/projects/:id/billing-invoices',
    auth: 'session',
    tag: 'billing',
    summary: 'Invoices received from the billing provider, newest first ([] when billing is off)',
    params: IdParams,
    resource: 'Project',
    responses: { 200: { description: 'invoices', schema: InvoiceOut.array() } },
    async handler(ctx, { params }) {
      await requireProjectRole(ctx, params.id, 'project.read');
      return ctx.deps.config.billing.enabled ? (await listInvoices(ctx.deps.knex, params.id)).map(presentInvoice) : [];
    },
  }),
];
