import { route } from '../route';
import { audited, requestAuditor } from '../../services/audit';
import { notFound } from '../errors';
import { IdParams } from '../schemas/common';
import { ApiKeyCreate, ApiKeyOut, ApiKeyWithSecretOut } from '../schemas/apiKeys';
import { type ApiKeyRow, createApiKey, deleteApiKey, listApiKeys } from '../../db/apiKeys';
import { API_KEY_SCOPES } from '../../db/apiKeys';
import { can } from '../../db/projects';
import { refuseRole } from '../projectAccess';

const present = (k: ApiKeyRow & { created_by_email?: string | null }) => ({
  id: k.id,
  name: k.name,
  scopes: k.scopes,
  prefix: k.prefix,
  createdBy: k.created_by_email ?? null,
  createdAt: new Date(k.created_at).toISOString(),
  lastUsedAt: k.last_used_at ? new Date(k.last_used_at).toISOString() : null,
});

/** What an entry keeps of a key (never its secret): enough to tell which key it was once it is gone. */
const keyDetails = (k: ApiKeyRow) => ({ name: k.name, scopes: k.scopes, prefix: k.prefix });

/** Only owners and admins (by cookie) or a key with `full` manage keys. */
const common = { auth: 'secret', tag: 'api-keys', resource: 'API key', scope: 'full' } as const;
const manage = { ...common, role: 'apiKeys.manage' } as const;

export default [
  route({
    ...common,
    method: 'get',
    path: '/api-keys',
    summary: "The project's named API keys, oldest first (never their secrets); owners and admins",
    responses: { 200: { description: 'the keys', schema: ApiKeyOut.array() } },
    async handler(ctx, { project }) {
      // A read has no audit action for a `role` denial to name (api/auditExempt.ts): checked here, with the same refusal.
      const { role } = ctx.state;
      if (role && !can(role, 'apiKeys.manage')) await refuseRole(ctx, project.id, 'apiKeys.manage', role, { type: 'api_key', id: null });
      return (await listApiKeys(ctx.deps.knex, project.id)).map(present);
    },
  }),
  route({
    ...manage,
    method: 'post',
    path: '/api-keys',
    audit: 'api_key.create',
    summary: 'Create a named key with scopes; the answer shows its secret, only here',
    body: ApiKeyCreate,
    responses: { 201: { description: 'created', schema: ApiKeyWithSecretOut } },
    async handler(ctx, { body, project }) {
      // In the table's order, each once: the list reads the same whatever order the caller sent.
      const scopes = API_KEY_SCOPES.filter((s) => body.scopes.includes(s));
      const { row, secret } = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => createApiKey(trx, { projectId: project.id, name: body.name, scopes, createdBy: ctx.state.user?.id ?? null }),
        ({ row }) => ({ projectId: project.id, action: 'api_key.create', target: { type: 'api_key', id: row.id }, details: keyDetails(row) }),
      );
      ctx.status = 201;
      return { ...present({ ...row, created_by_email: ctx.state.user?.email ?? null }), secret };
    },
  }),
  route({
    ...manage,
    method: 'delete',
    path: '/api-keys/:id',
    audit: 'api_key.revoke',
    summary: 'Revoke a key: it fails at once, on every replica',
    params: IdParams,
    responses: { 204: { description: 'revoked' } },
    async handler(ctx, { params, project }) {
      const gone = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => deleteApiKey(trx, project.id, params.id),
        (k) => k && { projectId: project.id, action: 'api_key.revoke', target: { type: 'api_key', id: k.id }, details: keyDetails(k) },
      );
      if (!gone) throw notFound('API key');
      ctx.status = 204;
    },
  }),
];
