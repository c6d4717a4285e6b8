import { route } from '../route';
import type { AppContext } from '../context';
import { audited, nothingChanged, requestAuditor } from '../../services/audit';
import { ApiError, notFound } from '../errors';
import { TrackingDomainOut, TrackingDomainSet } from '../schemas/trackingDomain';
import { presentTrackingDomain } from '../presenters/trackingDomain';
import { deleteTrackingDomain, findTrackingDomain } from '../../db/trackingDomains';
import { setProjectTrackingDomain, trackingDomainChecker } from '../../services/trackingDomains';
import { DnsLookupError } from '../../services/dns';

/**
 * A project's own tracking domain (docs/tracking.md "Your own tracking domain"). Changing it
 * changes the name every later email's links carry, so with the dashboard's cookie it takes the
 * role that manages domains (docs/roles.md; a MEMBER's attempt is refused and audited); the secret
 * key may, as for the rest.
 */
const present = (ctx: AppContext, row: Parameters<typeof presentTrackingDomain>[0]) => presentTrackingDomain(row, ctx.deps.config.trackingUrl);

const common = { auth: 'secret', tag: 'tracking', path: '/tracking-domain' } as const;

export default [
  route({
    ...common,
    method: 'get',
    summary: "The project's own tracking domain: the DNS records to publish and its status",
    responses: { 200: { description: 'the tracking domain (404 when none is set)', schema: TrackingDomainOut } },
    async handler(ctx, { project }) {
      const row = await findTrackingDomain(ctx.deps.knex, project.id);
      if (!row) throw notFound('Tracking domain');
      return present(ctx, row);
    },
  }),
  route({
    ...common,
    method: 'put',
    role: 'domains.manage',
    audit: 'tracking_domain.set',
    summary: "Set the project's tracking domain (PENDING until its CNAME and ownership TXT are found); the same name again changes nothing",
    body: TrackingDomainSet,
    responses: { 200: { description: 'the tracking domain', schema: TrackingDomainOut } },
    async handler(ctx, { body, project }) {
      const projectId = project.id;
      const { row, changed } = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => setProjectTrackingDomain({ config: ctx.deps.config, knex: trx }, projectId, body.domain),
        (r) => r.changed && { projectId, action: 'tracking_domain.set', target: { type: 'tracking_domain', id: null }, details: { domain: r.row.domain } },
      );
      if (!changed) nothingChanged('the tracking domain was already this name');
      return present(ctx, row);
    },
  }),
  route({
    ...common,
    method: 'delete',
    role: 'domains.manage',
    audit: 'tracking_domain.delete',
    summary: "Remove the project's tracking domain; mail rendered from then on uses the shared tracking host",
    responses: { 204: { description: 'removed' } },
    async handler(ctx, { project }) {
      const projectId = project.id;
      const deleted = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => deleteTrackingDomain(trx, projectId),
        (ok) => ok && { projectId, action: 'tracking_domain.delete', target: { type: 'tracking_domain', id: null } },
      );
      if (!deleted) throw notFound('Tracking domain');
      ctx.status = 204;
    },
  }),
  route({
    ...common,
    path: '/tracking-domain/check',
    method: 'post',
    summary: 'Check the tracking domain’s DNS records now instead of waiting for the background check',
    responses: { 200: { description: 'the tracking domain after the check', schema: TrackingDomainOut } },
    async handler(ctx, { project }) {
      try {
        const checked = await trackingDomainChecker(ctx.deps).verify(project.id);
        if (!checked) throw notFound('Tracking domain');
        return present(ctx, checked);
      } catch (err) {
        if (!(err instanceof DnsLookupError)) throw err;
        throw new ApiError(503, 'DNS_UNAVAILABLE', `Could not check the DNS records: ${err.message}`, {
          suggestion: 'DNS did not answer; try again in a moment. The background check also retries every 5 minutes.',
        });
      }
    },
  }),
];
