import type { Knex } from 'knex';
import { uuid } from '../lib/ids';

/** A project's subscription to its events (docs/webhooks.md). */
export interface WebhookEndpointRow {
  id: string;
  project_id: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  failing_since: Date | null;
  disabled_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * SQL: does event name `name` match one of the patterns `patterns` (text[])? A pattern is an exact
 * name, a family (`email.*`: every name starting `email.`) or `*`. The one definition of matching.
 */
export const matchesPatternsSql = (patterns: string, name: string) =>
  `EXISTS (SELECT 1 FROM unnest(${patterns}) p WHERE p = '*' OR p = ${name} OR (right(p, 2) = '.*' AND starts_with(${name}, left(p, -1))))`;

export interface NewWebhookEndpoint {
  projectId: string;
  url: string;
  events: string[];
  description?: string | null;
  secret: string;
}

export async function createWebhookEndpoint(db: Knex, e: NewWebhookEndpoint): Promise<WebhookEndpointRow> {
  const [row] = await db<WebhookEndpointRow>('webhook_endpoints')
    .insert({ id: uuid(), project_id: e.projectId, url: e.url, events: e.events, description: e.description ?? null, secret: e.secret })
    .returning('*');
  return row;
}

export async function listWebhookEndpoints(db: Knex, projectId: string): Promise<WebhookEndpointRow[]> {
  return db<WebhookEndpointRow>('webhook_endpoints')
    .where({ project_id: projectId })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ]);
}

/** Only within the project: another project's endpoint does not exist for the caller. */
export async function findWebhookEndpoint(db: Knex, projectId: string, id: string): Promise<WebhookEndpointRow | undefined> {
  return db<WebhookEndpointRow>('webhook_endpoints').where({ project_id: projectId, id }).first();
}

/** For the delivery workflow, which knows only the endpoint id. */
export async function getWebhookEndpoint(db: Knex, id: string): Promise<WebhookEndpointRow | undefined> {
  return db<WebhookEndpointRow>('webhook_endpoints').where({ id }).first();
}

export interface WebhookEndpointPatch {
  url?: string;
  events?: string[];
  description?: string | null;
  enabled?: boolean;
}

/** Re-enabling forgets the failure streak that disabled it. */
export async function updateWebhookEndpoint(db: Knex, projectId: string, id: string, patch: WebhookEndpointPatch): Promise<WebhookEndpointRow | undefined> {
  const [row] = await db<WebhookEndpointRow>('webhook_endpoints')
    .where({ project_id: projectId, id })
    .update({
      ...patch,
      ...(patch.enabled === true ? { failing_since: null, disabled_at: null } : {}),
      ...(patch.enabled === false ? { disabled_at: db.fn.now() as any } : {}),
      updated_at: db.fn.now() as any,
    })
    .returning('*');
  return row;
}

export async function deleteWebhookEndpoint(db: Knex, projectId: string, id: string): Promise<boolean> {
  return (await db('webhook_endpoints').where({ project_id: projectId, id }).delete()) > 0;
}

/** The new secret signs from now on; the current one keeps signing beside it for `overlapMs`. */
export async function rotateWebhookSecret(db: Knex, projectId: string, id: string, secret: string, overlapMs: number): Promise<WebhookEndpointRow | undefined> {
  const [row] = await db<WebhookEndpointRow>('webhook_endpoints')
    .where({ project_id: projectId, id })
    .update({
      previous_secret: db.ref('secret') as any,
      previous_secret_expires_at: db.raw(`now() + ? * interval '1 millisecond'`, [overlapMs]) as any,
      secret,
      updated_at: db.fn.now() as any,
    })
    .returning('*');
  return row;
}

/**
 * After an attempt round: any success ends a failure streak; a round of failures starts one. An
 * endpoint whose streak is older than `disableAfterMs` is disabled (returned true once, by the
 * statement that disabled it).
 */
export async function recordEndpointHealth(
  db: Knex,
  id: string,
  outcome: { succeeded: boolean; failed: boolean },
  disableAfterMs: number,
): Promise<{ disabled: boolean }> {
  if (outcome.succeeded) {
    await db('webhook_endpoints').where({ id }).whereNotNull('failing_since').update({ failing_since: null });
    return { disabled: false };
  }
  if (!outcome.failed) return { disabled: false };
  await db('webhook_endpoints').where({ id }).whereNull('failing_since').update({ failing_since: db.fn.now() });
  const disabled = await db('webhook_endpoints')
    .where({ id, enabled: true })
    .whereRaw(`failing_since < now() - ? * interval '1 millisecond'`, [disableAfterMs])
    .update({ enabled: false, disabled_at: db.fn.now(), updated_at: db.fn.now() });
  return { disabled: disabled > 0 };
}

/** Enabled endpoints with work that is due but has not moved for a while (a lost wake-up). */
export async function stalledWebhookEndpoints(db: Knex, olderThanMs: number, limit: number): Promise<WebhookEndpointRow[]> {
  return db<WebhookEndpointRow>('webhook_endpoints as w')
    .where('w.enabled', true)
    .whereExists(
      db('webhook_deliveries as d')
        .whereRaw('d.endpoint_id = w.id')
        .where('d.status', 'PENDING')
        .whereRaw(`d.next_attempt_at < now() - ? * interval '1 millisecond'`, [olderThanMs]),
    )
    .limit(limit)
    .select('w.*');
}
