import { route } from '../route';
import { audited, changedKeys, requestAuditor } from '../../services/audit';
import type { AppContext } from '../context';
import { badRequest, conflict, notFound } from '../errors';
import { IdParams } from '../schemas/common';
import {
  DeliveryListQuery,
  DeliveryParams,
  WebhookDeliveryOut,
  WebhookDeliveryPage,
  WebhookEndpointCreate,
  WebhookEndpointOut,
  WebhookEndpointUpdate,
  WebhookEndpointWithSecretOut,
} from '../schemas/webhookEndpoints';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  findWebhookEndpoint,
  listWebhookEndpoints,
  rotateWebhookSecret,
  updateWebhookEndpoint,
  WebhookEndpointRow,
} from '../../db/webhookEndpoints';
import { findDelivery, listDeliveries, retryDelivery, WebhookDeliveryRow } from '../../db/webhookDeliveries';
import { parseTimeCursor } from '../../db/eventQueries';
import { generateWebhookSecret, messageIdOf } from '../../services/webhooks/signing';
import { webhookPolicy } from '../../services/webhooks/policy';
import { handOffWebhooks } from '../../services/webhooks/handOff';
import { publishSystemMessage } from '../../services/webhooks/publish';
import { uuid } from '../../lib/ids';

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

const presentEndpoint = (e: WebhookEndpointRow) => ({
  id: e.id,
  url: e.url,
  events: e.events,
  description: e.description,
  enabled: e.enabled,
  disabledAt: iso(e.disabled_at),
  failingSince: iso(e.failing_since),
  createdAt: iso(e.created_at)!,
  updatedAt: iso(e.updated_at)!,
});

const presentWithSecret = (e: WebhookEndpointRow) => ({
  ...presentEndpoint(e),
  secret: e.secret,
  previousSecretExpiresAt: iso(e.previous_secret_expires_at),
});

const presentDelivery = (d: WebhookDeliveryRow) => ({
  id: d.id,
  messageId: messageIdOf(d.id),
  type: d.type,
  status: d.status,
  attempts: d.attempts,
  lastStatusCode: d.last_status_code,
  lastError: d.last_error,
  nextAttemptAt: iso(d.next_attempt_at),
  createdAt: iso(d.created_at)!,
});

/**
 * What an endpoint's audit entries keep: where it sends and what (never its secret). The URL is
 * the project's own configuration, not personal data, and it must outlive the endpoint: a deleted
 * endpoint that sent the project's events elsewhere is exactly what the log is read for.
 */
const endpointDetails = (e: WebhookEndpointRow) => ({ url: e.url, events: e.events, enabled: e.enabled });

/** The key's project owns every endpoint these routes see; anything else is a 404. */
async function ownEndpoint(ctx: AppContext, projectId: string, id: string): Promise<WebhookEndpointRow> {
  const row = await findWebhookEndpoint(ctx.deps.knex, projectId, id);
  if (!row) throw notFound('Webhook endpoint');
  return row;
}

function assertEnabled(e: WebhookEndpointRow): void {
  if (!e.enabled) throw conflict('The endpoint is disabled; enable it (PATCH { "enabled": true }) first');
}

const common = { auth: 'secret', tag: 'webhook-endpoints', resource: 'Webhook endpoint' } as const;

export default [
  route({
    ...common,
    method: 'post',
    path: '/webhook-endpoints',
    audit: 'webhook_endpoint.create',
    role: 'webhooks.manage',
    summary: "Subscribe a URL to the project's events; the answer shows the signing secret (only here and on rotation)",
    body: WebhookEndpointCreate,
    responses: { 201: { description: 'created and enabled', schema: WebhookEndpointWithSecretOut } },
    async handler(ctx, { body, project }) {
      const row = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => createWebhookEndpoint(trx, { projectId: project.id, ...body, secret: generateWebhookSecret() }),
        (e) => ({ projectId: project.id, action: 'webhook_endpoint.create', target: { type: 'webhook_endpoint', id: e.id }, details: endpointDetails(e) }),
      );
      ctx.status = 201;
      return presentWithSecret(row);
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/webhook-endpoints',
    summary: "The project's webhook endpoints, newest first",
    responses: { 200: { description: 'endpoints (secrets not shown)', schema: WebhookEndpointOut.array() } },
    async handler(ctx, { project }) {
      return (await listWebhookEndpoints(ctx.deps.knex, project.id)).map(presentEndpoint);
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/webhook-endpoints/:id',
    summary: 'One webhook endpoint',
    params: IdParams,
    responses: { 200: { description: 'the endpoint (secret not shown)', schema: WebhookEndpointOut } },
    async handler(ctx, { params, project }) {
      return presentEndpoint(await ownEndpoint(ctx, project.id, params.id));
    },
  }),
  route({
    ...common,
    method: 'patch',
    path: '/webhook-endpoints/:id',
    audit: 'webhook_endpoint.update',
    role: 'webhooks.manage',
    summary: 'Change the URL, patterns or description; enable or disable',
    params: IdParams,
    body: WebhookEndpointUpdate,
    responses: { 200: { description: 'the endpoint', schema: WebhookEndpointOut } },
    async handler(ctx, { params, body, project }) {
      const row = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => updateWebhookEndpoint(trx, project.id, params.id, body),
        (e) =>
          e && {
            projectId: project.id,
            action: 'webhook_endpoint.update',
            target: { type: 'webhook_endpoint', id: e.id },
            details: { changed: changedKeys(body), ...endpointDetails(e) },
          },
      );
      if (!row) throw notFound('Webhook endpoint');
      // Messages left PENDING while it was disabled go out now.
      if (body.enabled === true) await handOffWebhooks(ctx.deps, [row]);
      return presentEndpoint(row);
    },
  }),
  route({
    ...common,
    method: 'delete',
    path: '/webhook-endpoints/:id',
    audit: 'webhook_endpoint.delete',
    role: 'webhooks.manage',
    responses: { 204: { description: 'deleted' } },
    summary: 'Remove an endpoint and its delivery log; its delivery workflow ends on its next round',
    params: IdParams,
    async handler(ctx, { params, project }) {
      // The URL is kept in the entry: the row it would be read from goes with this change.
      const deleted = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        async (trx) => {
          const before = await findWebhookEndpoint(trx, project.id, params.id);
          return before && (await deleteWebhookEndpoint(trx, project.id, params.id)) ? before : null;
        },
        (gone) =>
          gone && {
            projectId: project.id,
            action: 'webhook_endpoint.delete',
            target: { type: 'webhook_endpoint', id: params.id },
            details: endpointDetails(gone),
          },
      );
      if (!deleted) throw notFound('Webhook endpoint');
      ctx.status = 204;
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/webhook-endpoints/:id/rotate-secret',
    audit: 'webhook_endpoint.rotate_secret',
    role: 'webhooks.manage',
    summary: 'New signing secret; the previous one keeps signing alongside it for 24 hours',
    params: IdParams,
    responses: { 200: { description: 'the endpoint with its new secret', schema: WebhookEndpointWithSecretOut } },
    async handler(ctx, { params, project }) {
      const overlap = webhookPolicy(ctx.deps.config).rotationOverlapMs;
      const row = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => rotateWebhookSecret(trx, project.id, params.id, generateWebhookSecret(), overlap),
        (e) =>
          e && { projectId: project.id, action: 'webhook_endpoint.rotate_secret', target: { type: 'webhook_endpoint', id: e.id }, details: endpointDetails(e) },
      );
      if (!row) throw notFound('Webhook endpoint');
      return presentWithSecret(row);
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/webhook-endpoints/:id/test',
    summary: 'Queue a `webhook.test` message to this endpoint, whatever its patterns',
    params: IdParams,
    responses: { 202: { description: 'the queued delivery', schema: WebhookDeliveryOut }, 409: { description: 'the endpoint is disabled' } },
    async handler(ctx, { params, project }) {
      const endpoint = await ownEndpoint(ctx, project.id, params.id);
      assertEnabled(endpoint);
      const [deliveryId] = await publishSystemMessage(ctx.deps, {
        projectId: endpoint.project_id,
        type: 'webhook.test',
        sourceKey: `webhook.test:${uuid()}`,
        data: { endpointId: endpoint.id, message: 'This is a test message.' },
        endpointId: endpoint.id,
      });
      ctx.status = 202;
      return presentDelivery((await findDelivery(ctx.deps.knex, endpoint.id, deliveryId))!);
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/webhook-endpoints/:id/deliveries',
    summary: "The endpoint's messages and their delivery state, newest first (cursor pagination)",
    params: IdParams,
    query: DeliveryListQuery,
    responses: { 200: { description: 'a page of deliveries', schema: WebhookDeliveryPage } },
    async handler(ctx, { params, query, project }) {
      await ownEndpoint(ctx, project.id, params.id);
      const after = query.cursor === undefined ? undefined : parseTimeCursor(query.cursor);
      if (after === null) throw badRequest('Invalid cursor: pass the cursor of a previous page');
      const page = await listDeliveries(ctx.deps.knex, { endpointId: params.id, limit: query.limit, status: query.status, after });
      return { data: page.rows.map(presentDelivery), cursor: page.cursor, hasMore: page.hasMore };
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/webhook-endpoints/:id/deliveries/:deliveryId/retry',
    summary: 'Send a message again now (same webhook-id), with a fresh retry window',
    resource: 'Webhook delivery',
    params: DeliveryParams,
    responses: { 202: { description: 'the delivery, PENDING and due now', schema: WebhookDeliveryOut }, 409: { description: 'the endpoint is disabled' } },
    async handler(ctx, { params, project }) {
      const endpoint = await ownEndpoint(ctx, project.id, params.id);
      assertEnabled(endpoint);
      const row = await retryDelivery(ctx.deps.knex, endpoint.id, params.deliveryId);
      if (!row) throw notFound('Webhook delivery');
      await handOffWebhooks(ctx.deps, [endpoint]);
      ctx.status = 202;
      return presentDelivery(row);
    },
  }),
];
