import { z } from 'zod';
import { route } from '../route';
import { audited, requestAuditor } from '../../services/audit';
import type { AppContext } from '../context';
import { ApiError, conflict, notFound } from '../errors';
import { IdParams } from '../schemas/common';
import { DomainCreate, DomainOut, ProjectDomainsParams } from '../schemas/domains';
import { createDomain, deleteDomain, DomainRow, findDomain, listDomains } from '../../db/domains';
import { domainChecker } from '../../services/domains';
import { DnsLookupError } from '../../services/dns';
import { generateDkimKey, signsMail } from '../../services/dkim';
import { presentDomain } from '../presenters/domains';
import { inboundRecords } from '../../services/inbound/records';
import { requestLanguage } from '../language';

/** The request's language for the records' problems; the answer depends on Accept-Language, so caches must key on it. */
function problemLanguage(ctx: AppContext) {
  ctx.vary('Accept-Language');
  return requestLanguage(ctx);
}

/** The key's project owns every domain these routes see; anything else is a 404. */
async function ownDomain(ctx: AppContext, projectId: string, id: string): Promise<DomainRow> {
  const row = await findDomain(ctx.deps.knex, id, projectId);
  if (!row) throw notFound('Domain');
  return row;
}

export default [
  route({
    method: 'post',
    path: '/domains',
    audit: 'domain.create',
    role: 'domains.manage',
    auth: 'secret',
    tag: 'domains',
    summary: 'Add a sender domain; the response lists the DNS records to publish',
    body: DomainCreate,
    responses: { 201: { description: 'created, PENDING until its DNS records are found', schema: DomainOut } },
    async handler(ctx, { body, project }) {
      // Every domain gets a key, so switching EMAIL_TRANSPORT to smtp later needs no new one; its record is listed only when we sign.
      const key = await generateDkimKey(ctx.deps.config, body.domain);
      const projectId = project.id;
      const row = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) =>
          createDomain(trx, projectId, body.domain, ctx.deps.config.spfMechanism, { key, listed: signsMail(ctx.deps.config) }, inboundRecords(ctx.deps.config)),
        (r) => r && { projectId, action: 'domain.create', target: { type: 'domain', id: r.id }, details: { domain: r.domain } },
      );
      if (!row) throw conflict(`Domain ${body.domain} is already added to this project`);
      ctx.status = 201;
      return presentDomain(row);
    },
  }),
  route({
    method: 'get',
    path: '/domains/project/:projectId',
    auth: 'secret',
    tag: 'domains',
    summary: "The project's domains, verified and pending",
    resource: 'Project',
    params: ProjectDomainsParams,
    responses: { 200: { description: 'domains', schema: z.array(DomainOut) } },
    async handler(ctx, { params, project }) {
      if (params.projectId !== project.id) throw notFound('Project');
      const lang = problemLanguage(ctx);
      return (await listDomains(ctx.deps.knex, params.projectId)).map((row) => presentDomain(row, lang));
    },
  }),
  route({
    method: 'get',
    path: '/domains/:id/verify',
    auth: 'secret',
    tag: 'domains',
    summary: 'Check the DNS records now instead of waiting for the background check',
    params: IdParams,
    responses: { 200: { description: 'the domain after the check', schema: DomainOut } },
    async handler(ctx, { params, project }) {
      await ownDomain(ctx, project.id, params.id);
      try {
        const checked = await domainChecker(ctx.deps).verifyDomain(params.id);
        if (!checked) throw notFound('Domain');
        return presentDomain(checked, problemLanguage(ctx));
      } catch (err) {
        if (!(err instanceof DnsLookupError)) throw err;
        throw new ApiError(503, 'DNS_UNAVAILABLE', `Could not check the DNS records: ${err.message}`, {
          suggestion: 'DNS did not answer; try again in a moment. The background check also retries every 5 minutes.',
        });
      }
    },
  }),
  route({
    method: 'delete',
    path: '/domains/:id',
    audit: 'domain.delete',
    role: 'domains.manage',
    responses: { 204: { description: 'deleted' } },
    auth: 'secret',
    tag: 'domains',
    summary: 'Remove a domain; senders on it stop being accepted',
    params: IdParams,
    async handler(ctx, { params, project }) {
      const projectId = project.id;
      const deleted = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => deleteDomain(trx, projectId, params.id),
        (ok) => ok && { projectId, action: 'domain.delete', target: { type: 'domain', id: params.id } },
      );
      if (!deleted) throw notFound('Domain');
      ctx.status = 204;
    },
  }),
];
