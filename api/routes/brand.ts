import { route } from '../route';
import { audited, requestAuditor } from '../../services/audit';
import { Brand } from '../../lib/brand';
import { getBrand, putBrand } from '../../db/brands';

/** The brand kit (lib/brand.ts): what new block documents start from and fall back to when compiled. */
export default [
  route({
    method: 'get',
    path: '/brand',
    auth: 'secret',
    tag: 'templates',
    summary: "The project's brand kit (the defaults when never set)",
    responses: { 200: { description: 'the brand', schema: Brand } },
    handler: async (ctx, { project }) => getBrand(ctx.deps.knex, project.id),
  }),
  route({
    method: 'put',
    path: '/brand',
    auth: 'secret',
    tag: 'templates',
    audit: 'brand.update',
    summary: 'Replace the brand kit; block templates use it from their next compile (save or publish)',
    body: Brand,
    responses: { 200: { description: 'the brand', schema: Brand } },
    handler: async (ctx, { body, project }) =>
      audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => putBrand(trx, project.id, body),
        () => ({ projectId: project.id, action: 'brand.update', target: { type: 'project', id: project.id } }),
      ),
  }),
];
